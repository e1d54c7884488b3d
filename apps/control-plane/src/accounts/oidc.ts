import { createHash } from "node:crypto";
import { parseCookie, stringifySetCookie } from "cookie";
import type * as Oidc from "openid-client" with { "resolution-mode": "import" };
import { Prisma, type PrismaClient, type SsoSettingsRow, type WorkspaceRow } from "@vigil/db";
import { SSO, SSO_STATE_COOKIE, emailDomainAllowed, mappedRole, normalizeEmail, oidcSessionMethod, userNameField, type Role } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import type { AuditStore } from "../audit/store";
import { recordAudit } from "../audit/record";
import { nodeHeaders } from "../auth/callers";
import { HttpError, type Request, type Response } from "../http/json";
import type { SharedRedis } from "../limits/shared-rate-limiter";
import { attemptLimiter } from "../limits/attempt-limiter";
import { clientAddress } from "../limits/request-rates";
import type { SecretBox } from "../notifications/secrets";
import type { UserSessions } from "./sessions";
import { tooMany } from "./sign-in";

/** Where the provider sends people back: the same for every workspace. */
const redirectUriOf = (publicUrl: string) => new URL("/v1/auth/oidc/callback", publicUrl).href;

/** The addresses of a workspace's sign-in: where it starts, and the redirect URI to register with the provider. */
export const oidcUrls = (publicUrl: string, slug: string) => ({
  start: new URL(`/v1/auth/oidc/${encodeURIComponent(slug)}/start`, publicUrl).href,
  redirectUri: redirectUriOf(publicUrl),
});

export const OIDC_CALLBACK_METHOD = "GET /v1/auth/oidc/callback";

// openid-client ships as an ES module only; the control plane is CommonJS.
const openidClient = () => import("openid-client");

/** A sign-in between its start and the provider's callback, kept in Redis under its state's hash. */
interface PendingSignIn {
  workspaceId: string;
  verifier: string;
  nonce: string;
}

export interface OidcDeps {
  prisma: PrismaClient;
  sessions: UserSessions;
  secrets: SecretBox;
  redis: SharedRedis;
  audit: AuditStore;
  publicUrl: string;
  isHttps: (req: Request) => boolean;
  logger: Logger;
}

type Route = (method: "GET", path: string, handler: (req: Request, res: Response, params: Record<string, string | undefined>) => Promise<void>) => void;

/** Lax, so that the provider's redirect back (a top-level GET from another site) carries it. */
const stateCookie = (state: string, maxAge: number, secure: boolean) =>
  stringifySetCookie({ name: SSO_STATE_COOKIE, value: state, path: "/v1/auth/oidc", maxAge, httpOnly: true, sameSite: "lax", secure });

const notEnabled = (what: string) => new HttpError("not_found", `single sign-on is not enabled for ${what}`);

/** Whether an error of openid-client is the provider out of reach (a failed fetch, a timeout) rather than an answer it refused. */
function unreachable(error: unknown): boolean {
  for (let e = error as { name?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof TypeError || e.name === "AbortError" || e.name === "TimeoutError") return true;
  }
  return false;
}

/**
 * `GET /v1/auth/oidc/:slug/start` and `GET /v1/auth/oidc/callback`: single
 * sign-on with OpenID Connect's authorization code flow, with PKCE (S256),
 * state and nonce, through openid-client (docs/accounts.md, "Single sign-on").
 * The verifier and nonce wait in Redis, shared by every control plane, for
 * SSO.flowSeconds, and the callback takes them out, so a state is used once.
 */
export function registerOidcRoutes(route: Route, deps: OidcDeps): void {
  const { prisma, logger } = deps;
  const pendingKey = (state: string) => `${deps.redis.prefix}:oidc:${createHash("sha256").update(state).digest("hex")}`;

  async function providerOf(settings: SsoSettingsRow): Promise<Oidc.Configuration> {
    const client = await openidClient();
    const secret = settings.clientSecret === null ? undefined : deps.secrets.open(settings.clientSecret);
    const issuer = new URL(settings.issuerUrl);
    try {
      return await client.discovery(issuer, settings.clientId, secret, secret === undefined ? client.None() : undefined, {
        // The settings allow http only for a loopback issuer (issuerUrlProblem).
        execute: issuer.protocol === "http:" ? [client.allowInsecureRequests] : [],
        timeout: 10,
      });
    } catch (error) {
      logger.warn({ err: error, issuer: settings.issuerUrl }, "OpenID Provider discovery failed");
      throw new HttpError("bad_gateway", `the identity provider ${settings.issuerUrl} could not be reached or answered no valid discovery document`);
    }
  }

  const startsByAddress = attemptLimiter(deps.redis, "oidc-start", { points: SSO.startsPerAddress, seconds: SSO.startsWindowSeconds });

  route("GET", "/v1/auth/oidc/:slug/start", async (req, res, params) => {
    const wait = await startsByAddress.reserve(clientAddress(req));
    if (wait > 0) throw tooMany(wait);
    const slug = params.slug ?? "";
    const workspace = await prisma.workspace.findUnique({ where: { slug }, include: { sso: true } });
    if (!workspace?.sso?.enabled) throw notEnabled(`workspace ${slug}`);
    const config = await providerOf(workspace.sso);
    const client = await openidClient();
    const [verifier, state, nonce] = [client.randomPKCECodeVerifier(), client.randomState(), client.randomNonce()];
    const pending: PendingSignIn = { workspaceId: workspace.id, verifier, nonce };
    await deps.redis.connection.set(pendingKey(state), JSON.stringify(pending), "EX", SSO.flowSeconds);
    const location = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUriOf(deps.publicUrl),
      scope: "openid email profile",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
    });
    const binding = stateCookie(state, SSO.flowSeconds, deps.isHttps(req));
    res.writeHead(302, { location: location.href, "set-cookie": binding, "cache-control": "no-store" }).end();
  });

  route("GET", "/v1/auth/oidc/callback", async (req, res) => {
    const callbackUrl = new URL(redirectUriOf(deps.publicUrl));
    callbackUrl.search = new URL(req.url ?? "/", "http://callback").search;
    const state = callbackUrl.searchParams.get("state");
    if (!state) throw new HttpError("invalid_argument", "state: is required");
    // Checked before the state is used up, so that a link made by someone else neither signs this browser in nor spends the sign-in.
    if (parseCookie(nodeHeaders(req.headers)("cookie") ?? "")[SSO_STATE_COOKIE] !== state) {
      throw new HttpError("invalid_argument", "state: this browser did not start this sign-in (no matching sign-in cookie); start signing in again");
    }
    const stored = await deps.redis.connection.getdel(pendingKey(state));
    if (stored === null) throw new HttpError("invalid_argument", "state: unknown, expired or already used; start signing in again");
    const pending = JSON.parse(stored) as PendingSignIn;
    const workspace = await prisma.workspace.findUnique({ where: { id: pending.workspaceId }, include: { sso: true } });
    if (!workspace?.sso?.enabled) throw notEnabled(workspace ? `workspace ${workspace.slug}` : "a deleted workspace");
    const claims = await verifiedClaims(workspace.sso, callbackUrl, state, pending);

    const email = typeof claims.email === "string" ? normalizeEmail(claims.email) : "";
    if (!email) throw new HttpError("permission_denied", "the identity provider gave no email address (the email scope)");
    if (claims.email_verified !== true) throw new HttpError("permission_denied", `the identity provider has not verified ${email} (email_verified)`);
    if (!emailDomainAllowed(email, workspace.sso.allowedDomains)) {
      throw new HttpError("permission_denied", `${email} is not in a domain allowed to sign in to workspace ${workspace.slug}`);
    }
    const { userId, role, joined } = await join(workspace, workspace.sso, email, claims).catch((error: unknown) => {
      // Two first sign-ins of one person at once: the other made the account or membership; this one joins it.
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return join(workspace, workspace.sso!, email, claims);
      throw error;
    });
    // The person's other sessions gain the workspace.
    if (joined) await deps.sessions.forgetPerson(userId);
    const userAgent = nodeHeaders(req.headers)("user-agent") ?? "";
    const session = await deps.sessions.open(userId, { userAgent, address: clientAddress(req) }, oidcSessionMethod(workspace.id));
    await recordAudit(
      deps.audit,
      { workspaceId: workspace.id, actor: { type: "user", userId, email }, method: OIDC_CALLBACK_METHOD, targetKind: "User", targetId: userId, changes: { email, role, joined } },
      logger,
    );
    logger.info({ userId, workspaceId: workspace.id, joined }, "signed in with single sign-on");
    const app = new URL(`/app/?workspace=${encodeURIComponent(workspace.slug)}`, deps.publicUrl).href;
    const cookies = [deps.sessions.cookie(session.token, session.expiresAt, deps.isHttps(req)), stateCookie("", 0, deps.isHttps(req))];
    res.writeHead(302, { location: app, "set-cookie": cookies, "cache-control": "no-store" }).end();
  });

  /** The ID token's claims, after openid-client checked state, PKCE, nonce and the token; the UserInfo claims fill in what the ID token leaves out. */
  async function verifiedClaims(settings: SsoSettingsRow, callbackUrl: URL, state: string, pending: PendingSignIn): Promise<Record<string, unknown>> {
    const config = await providerOf(settings);
    const client = await openidClient();
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: pending.verifier, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true });
      const idClaims = tokens.claims()!;
      const userInfo = config.serverMetadata().userinfo_endpoint ? await client.fetchUserInfo(config, tokens.access_token, idClaims.sub) : {};
      return { ...userInfo, ...idClaims };
    } catch (error) {
      if (unreachable(error)) {
        logger.warn({ err: error, issuer: settings.issuerUrl }, "OpenID Provider unreachable during sign-in");
        throw new HttpError("bad_gateway", `the identity provider ${settings.issuerUrl} could not be reached`);
      }
      const reason = error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError ? `${error.error}: ${error.error_description ?? ""}` : (error as Error).message;
      logger.info({ issuer: settings.issuerUrl, reason }, "single sign-on refused");
      throw new HttpError("invalid_argument", `the identity provider's answer was refused: ${reason.trim()}`);
    }
  }

  /**
   * The person with this email, made without a password when new, and their
   * membership: one who joins gets the mapped role or the default one; a
   * member keeps the role the workspace gave them.
   */
  async function join(workspace: WorkspaceRow, settings: SsoSettingsRow, email: string, claims: Record<string, unknown>) {
    const role: Role = mappedRole(settings.roleClaim ? claims[settings.roleClaim] : undefined, settings.roleMapping as Record<string, string>) ?? (settings.defaultRole as Role);
    // A name the provider gives that breaks Vigil's rule for names is replaced by the email.
    const given = userNameField().safeParse(typeof claims.name === "string" ? claims.name.trim() : undefined);
    const name = given.success ? given.data : email;
    return prisma.$transaction(async (tx) => {
      const user = await tx.user.upsert({ where: { email }, create: { email, name }, update: {} });
      const member = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: workspace.id, userId: user.id } } });
      if (member) return { userId: user.id, role: member.role, joined: false };
      await tx.membership.create({ data: { workspaceId: workspace.id, userId: user.id, role } });
      return { userId: user.id, role, joined: true };
    });
  }
}
