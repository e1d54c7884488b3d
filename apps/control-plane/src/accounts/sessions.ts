import { createHash, randomBytes } from "node:crypto";
import { parseCookie, stringifySetCookie } from "cookie";
import type { PrismaClient, UserSessionRow } from "@vigil/db";
import { ACCOUNTS, PASSWORD_SESSION, SESSION_COOKIE, isRole, oidcSessionWorkspace, scopesOfRole } from "@vigil/domain";
import type { UserActor } from "../auth/actor";
import type { Revocations } from "../auth/revocation-relay";
import type { SessionRecord, VerifiedSessions } from "./verified-sessions";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface SessionSettings {
  /** SESSION_IDLE_DAYS */
  idleDays: number;
  /** SESSION_MAX_DAYS */
  maxDays: number;
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = { idleDays: ACCOUNTS.sessionIdleDays, maxDays: ACCOUNTS.sessionMaxDays };

const TOUCH_MS = ACCOUNTS.sessionTouchSeconds * 1000;

const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

/** The session token a request's cookie carries, if any. */
export function sessionTokenOf(cookieHeader: string | null | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  return parseCookie(cookieHeader)[SESSION_COOKIE] || undefined;
}

/** What a valid session resolves to: the person, and their role in the workspace asked for (none when not a member). */
export type SessionLookup =
  | { status: "none" }
  | { status: "not_member"; userId: string; email: string; sessionId: string; workspaceSlug: string | undefined }
  | { status: "member"; actor: UserActor }
  /** A member of a workspace whose single sign-on is enforced, with a session not opened by it. */
  | { status: "sso_required"; actor: UserActor }
  /** A session opened by another workspace's single sign-on, which vouches for the person only there. */
  | { status: "sso_elsewhere"; actor: UserActor };

/**
 * People's sessions, kept in the database: the cookie holds 256 random bits,
 * the database their SHA-256. Calls read them through short-lived verified
 * copies; whatever ends one, or changes its person's memberships, tells every
 * control plane before it answers, so that one ended anywhere is refused
 * everywhere at once. A session ends when its person signs out or ends it,
 * changes or resets their password (every other one), after `idleDays`
 * unused, and `maxDays` after sign-in.
 */
export class UserSessions {
  private readonly settings: SessionSettings;
  private readonly now: () => number;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly verified: VerifiedSessions,
    private readonly revocations: Pick<Revocations, "announcePerson" | "announceWorkspace">,
    options: { settings?: SessionSettings; now?: () => number } = {},
  ) {
    this.settings = options.settings ?? DEFAULT_SESSION_SETTINGS;
    this.now = options.now ?? Date.now;
  }

  /** Opens a session; the token goes into the cookie and is never stored. */
  async open(userId: string, client: { userAgent: string; address: string }, method = PASSWORD_SESSION): Promise<{ token: string; sessionId: string; expiresAt: Date }> {
    const token = randomBytes(32).toString("base64url");
    const now = new Date(this.now());
    const expiresAt = new Date(now.getTime() + this.settings.maxDays * DAY_MS);
    const session = await this.prisma.userSession.create({
      data: { tokenHash: tokenHash(token), userId, createdAt: now, lastSeenAt: now, expiresAt, userAgent: client.userAgent.slice(0, 512), address: client.address, method },
    });
    return { token, sessionId: session.id, expiresAt };
  }

  /** The Set-Cookie value that carries a session until its absolute end. */
  cookie(token: string, expiresAt: Date, secure: boolean): string {
    const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - this.now()) / 1000));
    return stringifySetCookie({ name: SESSION_COOKIE, value: token, path: "/", maxAge, httpOnly: true, sameSite: "lax", secure });
  }

  /** The Set-Cookie value that removes the session cookie. */
  clearedCookie(secure: boolean): string {
    return stringifySetCookie({ name: SESSION_COOKIE, value: "", path: "/", maxAge: 0, httpOnly: true, sameSite: "lax", secure });
  }

  /**
   * Who holds `token`, acting in the workspace named by `workspaceSlug`, or,
   * when none is named, in the workspace whose single sign-on opened the
   * session, else in their first workspace. A session seen again after
   * `sessionTouchSeconds` has its last use written, which its idle expiry
   * counts from.
   */
  async lookUp(token: string | undefined, workspaceSlug: string | undefined): Promise<SessionLookup> {
    if (!token) return { status: "none" };
    const session = await this.verified.get(tokenHash(token));
    if (!session) return { status: "none" };
    const now = this.now();
    if (session.expiresAt <= now || session.lastSeenAt + this.settings.idleDays * DAY_MS <= now) {
      await this.prisma.userSession.deleteMany({ where: { id: session.sessionId } });
      await this.forgetPerson(session.userId);
      return { status: "none" };
    }
    await this.touch(session, now);
    const { userId, email, sessionId, memberships } = session;
    const ssoWorkspaceId = oidcSessionWorkspace(session.method);
    const membership = memberships.find((m) =>
      workspaceSlug === undefined ? ssoWorkspaceId === undefined || m.workspace.id === ssoWorkspaceId : m.workspace.slug === workspaceSlug,
    );
    if (!membership || !isRole(membership.role)) return { status: "not_member", userId, email, sessionId, workspaceSlug };
    const { workspace } = membership;
    // A workspace's provider vouches for people in that workspace only: its owner chose it, and could make it assert any email.
    const status = ssoWorkspaceId !== undefined && ssoWorkspaceId !== workspace.id ? "sso_elsewhere" : membership.ssoEnforced && ssoWorkspaceId !== workspace.id ? "sso_required" : "member";
    return {
      status,
      actor: { type: "user", userId, email, role: membership.role, sessionId, scopes: scopesOfRole(membership.role), workspace },
    };
  }

  /**
   * Writes a session's last use when the one known is `sessionTouchSeconds`
   * old, so a busy session costs one write a minute; the condition on the row
   * keeps the other control planes from writing it again within the minute.
   */
  private async touch(session: SessionRecord, now: number): Promise<void> {
    if (now - session.lastSeenAt < TOUCH_MS) return;
    const known = session.lastSeenAt;
    session.lastSeenAt = now;
    try {
      await this.prisma.userSession.updateMany({ where: { id: session.sessionId, lastSeenAt: { lte: new Date(now - TOUCH_MS) } }, data: { lastSeenAt: new Date(now) } });
    } catch {
      session.lastSeenAt = known; // written by a later call
    }
  }

  /**
   * Makes every control plane read the person's sessions and memberships
   * again before it answers: after a session ends, and after any change to
   * their memberships (a role given or changed, a membership removed).
   */
  forgetPerson(userId: string): Promise<void> {
    return this.revocations.announcePerson(userId);
  }

  /** The same for every member of a workspace, after its single sign-on settings change (enforcement). */
  forgetMembersOf(workspaceId: string): Promise<void> {
    return this.revocations.announceWorkspace(workspaceId);
  }

  /** A person's sessions that have not expired, oldest first. */
  list(userId: string): Promise<UserSessionRow[]> {
    const now = this.now();
    return this.prisma.userSession.findMany({
      where: { userId, expiresAt: { gt: new Date(now) }, lastSeenAt: { gt: new Date(now - this.settings.idleDays * DAY_MS) } },
      orderBy: { createdAt: "asc" },
    });
  }

  /** Ends one session of a person (signing out, or ending it from another). */
  async end(userId: string, sessionId: string): Promise<boolean> {
    const { count } = await this.prisma.userSession.deleteMany({ where: { id: sessionId, userId } });
    if (count > 0) await this.forgetPerson(userId);
    return count > 0;
  }

  /** Ends every session of a person but `keep` (after a password change or reset). */
  async endAllBut(userId: string, keep: string | undefined): Promise<void> {
    await this.prisma.userSession.deleteMany({ where: { userId, ...(keep && { id: { not: keep } }) } });
    await this.forgetPerson(userId);
  }

  /** Ends the session a token carries, whoever holds it. */
  async endByToken(token: string): Promise<void> {
    const session = await this.prisma.userSession.findUnique({ where: { tokenHash: tokenHash(token) }, select: { id: true, userId: true } });
    if (session && (await this.prisma.userSession.deleteMany({ where: { id: session.id } })).count > 0) await this.forgetPerson(session.userId);
  }
}
