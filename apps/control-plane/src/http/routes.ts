import FindMyWay, { type HTTPVersion } from "find-my-way";
import type { PrismaClient } from "@vigil/db";
import { isReadableLine } from "@vigil/domain";
import type { Actor } from "../auth/actor";
import { credentialOf, nodeHeaders, type Callers } from "../auth/callers";
import { revokeApiKey } from "../auth/revoke";
import type { KeyRevocations } from "../auth/revocation-relay";
import { attemptsByAccount, registerSignInRoutes } from "../accounts/sign-in";
import type { UserSessions } from "../accounts/sessions";
import { AccountLinks } from "../accounts/account-links";
import { registerAccountLinkRoutes } from "../accounts/account-link-routes";
import { mailsByAddress } from "../accounts/account-mail";
import { SecondFactor } from "../accounts/second-factor";
import { registerOidcRoutes } from "../accounts/oidc";
import { auditedCaller } from "../audit/attribution";
import { recordAudit } from "../audit/record";
import { AuditStore } from "../audit/store";
import type { SecretBox } from "../notifications/secrets";
import { PageAccessControl } from "../status-pages/public/access";
import { PageHosts } from "../status-pages/public/addresses";
import { PageSessions } from "../status-pages/public/sessions";
import { registerSignInRoutes as registerPageSignInRoutes, type SignInDeps } from "../status-pages/public/sign-in";
import { publicStatusPageRoutes, type PublicPagesOptions } from "../status-pages/public/routes";
import { registerSubscribeRoutes } from "../status-pages/public/subscribe";
import type { Subscriptions } from "../status-pages/subscribers/subscriptions";
import type { Logger } from "@vigil/logging";
import { ACCOUNTS, PAGE_ACCESS, SUBSCRIBERS } from "@vigil/domain";
import { toHttpError } from "../errors";
import { HttpError, sendError, sendJson, type Request, type Response } from "./json";
import { clientAddress, tooManyRequests } from "../limits/request-rates";
import { attemptLimiter } from "../limits/attempt-limiter";
import type { SharedRedis } from "../limits/shared-rate-limiter";
import { scrape } from "../metrics/endpoint";
import type { PipelineSource } from "../metrics/pipeline-gauges";
import { consoleRoutes, type ConsoleFiles } from "../console/files";
import { registerAckRoutes } from "../alerting/ack-routes";
import type { Acknowledgements } from "../alerting/acknowledgements";
import { registerPingRoutes } from "../heartbeats/ping-routes";
import type { HeartbeatPings } from "../heartbeats/pings";

type Handler = (req: Request, res: Response, params: Record<string, string | undefined>) => Promise<void>;

/**
 * The plain HTTP endpoints beside the RPC API: identity, sign-in, key
 * revocation, health, Prometheus metrics (unless `metrics` is null), the
 * public status pages and the console.
 */
export function httpRoutes(
  prisma: PrismaClient,
  auth: { callers: Callers; sessions: UserSessions; revocations: KeyRevocations },
  logger: Logger,
  pageAccess: Pick<SignInDeps, "settings"> & { secrets: SecretBox; redis: SharedRedis; reservedDomains: ReadonlySet<string>; subscriptions: Subscriptions },
  publicPages: Pick<PublicPagesOptions, "statuses" | "pageChanges" | "rates">,
  metrics: PipelineSource | null,
  consoleSite: ConsoleFiles,
  acknowledgements: Acknowledgements,
  pings: HeartbeatPings,
): (req: Request, res: Response) => void {
  const router = FindMyWay<HTTPVersion.V1>({
    ignoreTrailingSlash: true,
    defaultRoute: (req, res) => sendError(res, new HttpError("not_found", `no endpoint ${req.method} ${req.url}`)),
  });

  const audit = new AuditStore(prisma);
  const authenticated = async (req: Request): Promise<Actor> => {
    const header = nodeHeaders(req.headers);
    const refusal = await publicPages.rates.apiCall(clientAddress(req), credentialOf(header));
    if (refusal) throw tooManyRequests(refusal);
    return auth.callers.actorOf(header);
  };

  const route = (method: "GET" | "POST" | "DELETE", path: string, handler: Handler) =>
    router.on(method, path, (req, res, params) => {
      handler(req, res, params).catch((error: unknown) => {
        const answer = toHttpError(error);
        if (answer.code === "internal") logger.error({ err: error, method, path }, "http endpoint failed");
        sendError(res, answer);
      });
    });

  route("GET", "/v1/whoami", async (req, res) => {
    const actor = await authenticated(req);
    const { workspace } = actor;
    const shown =
      actor.type === "apiKey"
        ? { type: actor.type, keyId: actor.keyId, scopes: actor.scopes }
        : { type: actor.type, userId: actor.userId, email: actor.email, role: actor.role, scopes: actor.scopes };
    sendJson(res, 200, { name: workspace.name, slug: workspace.slug, plan: workspace.plan, actor: shown });
  });

  route("DELETE", "/v1/api-key/:id", async (req, res, params) => {
    const actor = await authenticated(req);
    const revoked = await revokeApiKey(prisma, auth.revocations, actor, params.id ?? "");
    const entry = { ...auditedCaller(actor), method: "DELETE /v1/api-key/:id", targetKind: "ApiKey", targetId: revoked.id, changes: {} };
    await recordAudit(audit, entry, logger);
    sendJson(res, 200, { id: revoked.id, revoked: true, revokedAt: revoked.revokedAt.toISOString() });
  });

  route("GET", "/healthz", async (_req, res) => {
    try {
      await prisma.$queryRaw`SELECT 1`;
    } catch (error) {
      logger.warn({ err: error }, "health check: database unreachable");
      throw new HttpError("unavailable", "database unreachable");
    }
    sendJson(res, 200, { status: "ok" });
  });

  // Unauthenticated like /healthz, for Prometheus; METRICS_ENABLED=false takes it off a public API port.
  if (metrics) {
    route("GET", "/metrics", async (_req, res) => {
      const { contentType, body } = await scrape(metrics, prisma);
      res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" }).end(body);
    });
  }

  const hosts = new PageHosts(pageAccess.settings.publicUrl, pageAccess.reservedDomains);
  const ownOrigin = new URL(pageAccess.settings.publicUrl).origin;
  registerSignInRoutes(route, {
    prisma,
    logger,
    audit,
    secondFactor: new SecondFactor(prisma, pageAccess.secrets),
    sessions: auth.sessions,
    attemptsByAddress: attemptLimiter(pageAccess.redis, "sign-in-address", { points: ACCOUNTS.signInAttemptsPerAddress, seconds: ACCOUNTS.signInWindowSeconds }),
    attemptsByAccount: attemptsByAccount(pageAccess.redis),
    ownOrigin,
    isHttps: (req) => hosts.isHttps(req),
  });
  registerAccountLinkRoutes(route, {
    prisma,
    logger,
    audit,
    ownOrigin,
    sessions: auth.sessions,
    links: new AccountLinks(prisma, pageAccess.settings, mailsByAddress(pageAccess.redis)),
    resetsByAddress: attemptLimiter(pageAccess.redis, "password-reset-address", { points: ACCOUNTS.passwordResetsPerAddressPerHour, seconds: 3_600 }),
  });

  registerOidcRoutes(route, {
    prisma,
    logger,
    sessions: auth.sessions,
    secrets: pageAccess.secrets,
    redis: pageAccess.redis,
    audit,
    publicUrl: pageAccess.settings.publicUrl,
    isHttps: (req) => hosts.isHttps(req),
  });

  const sessions = new PageSessions(pageAccess.secrets.deriveKey("status page sessions"));
  const pageAttempts = attemptLimiter(pageAccess.redis, "status-page-sign-in", { points: PAGE_ACCESS.signInAttempts, seconds: PAGE_ACCESS.signInWindowSeconds });
  registerPageSignInRoutes(router, { prisma, logger, sessions, attempts: pageAttempts, hosts, settings: pageAccess.settings });
  const access = new PageAccessControl(sessions, hosts);
  registerSubscribeRoutes(router, {
    prisma,
    logger,
    sessions,
    hosts,
    settings: pageAccess.settings,
    subscribers: pageAccess.subscriptions.repository,
    tokens: pageAccess.subscriptions.tokens,
    secrets: pageAccess.secrets,
    maxPerPage: pageAccess.subscriptions.maxPerPage,
    confirmations: attemptLimiter(pageAccess.redis, "subscribe-confirmation", { points: SUBSCRIBERS.confirmationMailsPerAddressPerHour, seconds: 3_600 }),
  });
  publicStatusPageRoutes(router, { prisma, logger, access, hosts, publicUrl: pageAccess.settings.publicUrl, ...publicPages });
  registerAckRoutes(router, acknowledgements, logger);
  registerPingRoutes(route, pings, publicPages.rates);
  consoleRoutes(router, consoleSite, (req) => hosts.isOwnAddress(req));

  return (req, res) => {
    if (!isReadablePath(req.url ?? "/")) {
      return sendError(res, new HttpError("invalid_argument", "the request's path must not contain control characters"));
    }
    router.lookup(req as never, res as never);
  };
}

/**
 * Whether a path, decoded, is free of control characters: no id, slug or
 * token holds one, so such a path names nothing and is refused before any
 * lookup. A path that does not decode is left to the router, which answers 400.
 */
function isReadablePath(url: string): boolean {
  const path = url.split("?", 1)[0]!;
  try {
    return isReadableLine(decodeURIComponent(path));
  } catch {
    return true;
  }
}
