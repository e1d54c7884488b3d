import type { PrismaClient } from "@vigil/db";
import { VerifiedCopies, type CopyOptions } from "../auth/verified-copies";

/** A session as the database holds it, with its person's memberships: what a call with its cookie needs. */
export interface SessionRecord {
  sessionId: string;
  userId: string;
  email: string;
  /** The absolute end (ms). */
  expiresAt: number;
  /** The last use written (ms), or written by this control plane since: the idle expiry counts from it. */
  lastSeenAt: number;
  /** How it was opened: by password, or by a workspace's single sign-on (PASSWORD_SESSION, oidcSessionWorkspace). */
  method: string;
  /** Oldest first: a call that names no workspace acts in the first. */
  memberships: {
    role: string;
    workspace: { id: string; name: string; slug: string; plan: string };
    /** Whether the workspace lets its members in through its single sign-on only. */
    ssoEnforced: boolean;
  }[];
}

/**
 * The sessions callers present, from short-lived copies (verified-copies.ts),
 * so that a call with a cookie costs no more than one with an API key
 * (docs/benchmarks.md, "People"). Whatever ends a session, changes its
 * person's memberships or its workspace's single sign-on forgets the copies
 * here and, through the revocation relay, on every other control plane
 * before it answers.
 */
export class VerifiedSessions {
  private readonly copies: VerifiedCopies<SessionRecord>;

  constructor(prisma: PrismaClient, options: Partial<CopyOptions> = {}) {
    this.copies = new VerifiedCopies(async (tokenHash, previous) => {
      const session = await prisma.userSession.findUnique({
        where: { tokenHash },
        include: { user: { include: { memberships: { include: { workspace: { include: { sso: { select: { enabled: true, enforced: true } } } } }, orderBy: { createdAt: "asc" } } } } },
      });
      if (!session) return null;
      const { user } = session;
      const record: SessionRecord = {
        sessionId: session.id,
        userId: user.id,
        email: user.email,
        expiresAt: session.expiresAt.getTime(),
        lastSeenAt: Math.max(session.lastSeenAt.getTime(), previous?.lastSeenAt ?? 0),
        method: session.method,
        memberships: user.memberships.map(({ role, workspace: { id, name, slug, plan, sso } }) => ({
          role,
          workspace: { id, name, slug, plan },
          ssoEnforced: Boolean(sso?.enabled && sso.enforced),
        })),
      };
      return { value: record, validUntil: record.expiresAt };
    }, options);
  }

  get(tokenHash: string): Promise<SessionRecord | null> {
    return this.copies.get(tokenHash);
  }

  /** Drops the copies of every session of a person: one ended, or their memberships changed. */
  forgetPerson(userId: string): void {
    this.copies.forget((session) => session.userId === userId);
  }

  /** Drops the copies of every session of a workspace's members: its single sign-on settings changed. */
  forgetMembersOf(workspaceId: string): void {
    this.copies.forget((session) => session.memberships.some((m) => m.workspace.id === workspaceId));
  }

  forgetAll(): void {
    this.copies.forgetAll();
  }
}
