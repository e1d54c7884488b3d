import { Code, ConnectError } from "@connectrpc/connect";
import { WORKSPACE_HEADER } from "@vigil/domain";
import { sessionTokenOf, type SessionLookup, type UserSessions } from "../accounts/sessions";
import type { Actor, Person } from "./actor";
import { API_KEY_HEADER } from "./api-keys";
import type { VerifiedKeys } from "./verified-keys";

/** A request's headers, read by name (lower case): Connect's Headers and Node's IncomingHttpHeaders alike. */
export type HeaderOf = (name: string) => string | undefined;

/**
 * Whether a request a browser sent comes from the service's own origin.
 * Browsers send `Sec-Fetch-Site` with every request and `Origin` with every
 * POST; a request with neither comes from a client that no other site can
 * drive, and carries the cookie only because its user put it there.
 */
export function fromOwnOrigin(header: HeaderOf, ownOrigin: string): boolean {
  const site = header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin" || site === "none";
  const origin = header("origin");
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return url.origin === ownOrigin || url.host === header("host");
  } catch {
    return false; // "null" (a sandboxed or privacy-sensitive context) and anything else unreadable
  }
}

/** What a request presents to act with, counted by the per-credential rate limit: its API key (which wins), else its session. */
export interface Credential {
  what: "API key" | "session";
  secret: string;
}

export function credentialOf(header: HeaderOf): Credential | undefined {
  const key = header(API_KEY_HEADER);
  if (key) return { what: "API key", secret: key };
  const session = sessionTokenOf(header("cookie"));
  return session ? { what: "session", secret: session } : undefined;
}

export const MISSING_CREDENTIALS = `missing credentials: send an API key in the ${API_KEY_HEADER} header, or sign in`;

/**
 * Who a request comes from: an API key in `x-service-key` (which wins when
 * both are sent), or a person's session cookie acting in the workspace
 * `x-vigil-workspace` names. A session's request must come from the service's
 * own origin (docs/accounts.md, "Cross-site requests").
 */
export class Callers {
  constructor(
    private readonly keys: VerifiedKeys,
    private readonly sessions: UserSessions,
    /** PUBLIC_URL's origin. */
    private readonly ownOrigin: string,
  ) {}

  /**
   * `ssoRecovery`: an owner may act without the session single sign-on
   * enforcement asks for (SsoService, to mend or turn off a broken provider).
   */
  async actorOf(header: HeaderOf, options: { ssoRecovery?: boolean } = {}): Promise<Actor> {
    const key = header(API_KEY_HEADER);
    if (key) {
      const actor = await this.keys.actorFor(key);
      if (!actor) throw new ConnectError(`unknown or revoked API key in the ${API_KEY_HEADER} header`, Code.Unauthenticated);
      return actor;
    }
    const found = await this.sessionOf(header, header(WORKSPACE_HEADER) || undefined);
    if (found.status === "not_member") {
      const where = found.workspaceSlug === undefined ? "any workspace" : `workspace ${found.workspaceSlug}`;
      throw new ConnectError(`${found.email} is not a member of ${where}`, Code.PermissionDenied);
    }
    if (found.status === "sso_elsewhere") {
      throw new ConnectError(`this session was opened by another workspace's single sign-on and acts only there; sign in to ${found.actor.workspace.slug} with a password or its own single sign-on`, Code.PermissionDenied);
    }
    if (found.status === "sso_required" && !(options.ssoRecovery && found.actor.role === "owner")) {
      const { slug } = found.actor.workspace;
      throw new ConnectError(`workspace ${slug} requires single sign-on: sign in at /v1/auth/oidc/${slug}/start`, Code.PermissionDenied);
    }
    return found.actor;
  }

  /** The signed-in person, a member of any workspaces or none; an API key is refused, for it acts for a workspace and not for a person. */
  async personOf(header: HeaderOf): Promise<Person> {
    if (header(API_KEY_HEADER)) {
      await this.actorOf(header); // an unknown key is unauthenticated, as everywhere
      throw new ConnectError("this needs a person's session; an API key cannot call it", Code.PermissionDenied);
    }
    const found = await this.sessionOf(header, undefined);
    const { userId, email, sessionId } = found.status === "not_member" ? found : found.actor;
    return { userId, email, sessionId };
  }

  private async sessionOf(header: HeaderOf, workspaceSlug: string | undefined): Promise<Exclude<SessionLookup, { status: "none" }>> {
    const token = sessionTokenOf(header("cookie"));
    if (!token) throw new ConnectError(MISSING_CREDENTIALS, Code.Unauthenticated);
    if (!fromOwnOrigin(header, this.ownOrigin)) {
      throw new ConnectError("a request with a session must come from the service's own origin", Code.PermissionDenied);
    }
    const found = await this.sessions.lookUp(token, workspaceSlug);
    if (found.status === "none") throw new ConnectError("the session has ended; sign in again", Code.Unauthenticated);
    return found;
  }
}

/** Reads a Connect request's headers. */
export const connectHeaders = (headers: Headers): HeaderOf => (name) => headers.get(name) ?? undefined;

/** Reads a Node request's headers (the first of repeated ones). */
export const nodeHeaders =
  (headers: Record<string, string | string[] | undefined>): HeaderOf =>
  (name) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
