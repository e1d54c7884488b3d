import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { PrismaClient } from "@vigil/db";
import { DEFAULT_CONNECTION_LIMITS, DEFAULTS, LIMITS, REQUEST_LIMITS, SUBSCRIBERS, reservedDomainsOf, type ConnectionLimits } from "@vigil/domain";
import { IncidentService, MaintenanceService, MonitorService } from "@vigil/proto";
import { Health, HealthCheckResponse_ServingStatus } from "@vigil/proto/grpc";
import { NotificationService } from "@vigil/proto/notification";
import { StatusPageService } from "@vigil/proto/status-page";
import { AccountService, ApiKeyService, AuditLogService, MemberService, SsoService } from "@vigil/proto/account";
import type { ProviderSettings } from "@vigil/notifications";
import { authInterceptor, personInterceptor } from "./auth/interceptor";
import { accountService } from "./accounts/service";
import { attemptsByAccount } from "./accounts/sign-in";
import { Callers } from "./auth/callers";
import { UserSessions, type SessionSettings } from "./accounts/sessions";
import { Invitations } from "./accounts/invitations";
import { memberService } from "./accounts/member-service";
import { subscriptionsOf } from "./status-pages/subscribers/subscriptions";
import { SubscriberNotices } from "./status-pages/subscribers/notices";
import { DEFAULT_RETRY_DELAYS_MS } from "./alerting/retry-schedule";
import { apiKeyService } from "./accounts/api-key-service";
import type { Revocations } from "./auth/revocation-relay";
import type { VerifiedSessions } from "./accounts/verified-sessions";
import { AccountLinks } from "./accounts/account-links";
import { mailsByAddress } from "./accounts/account-mail";
import { SecondFactor } from "./accounts/second-factor";
import { ssoService } from "./accounts/sso-service";
import type { VerifiedKeys } from "./auth/verified-keys";
import { httpRoutes } from "./http/routes";
import { listenHttp1AndH2c, type Listener } from "./http/listener";
import { RequestRates, type RateLimitSettings } from "./limits/request-rates";
import type { SharedRedis } from "./limits/shared-rate-limiter";
import { rateLimitGate, rpcContextValues } from "./limits/rpc-gate";
import type { Logger } from "@vigil/logging";
import { MonitorRepository } from "./monitors/repository";
import { monitorService } from "./monitors/service";
import { NotificationRepository } from "./notifications/repository";
import type { SecretBox } from "./notifications/secrets";
import { notificationService } from "./notifications/service";
import type { Changes } from "./changes/changes";
import { StatusPageRepository } from "./status-pages/repository";
import { statusPageService } from "./status-pages/service";
import { maintenanceService } from "./maintenance/service";
import { MaintenanceRepository } from "./maintenance/repository";
import { MaintenanceEventHub } from "./maintenance/events";
import { maintenanceNotices } from "./status-pages/subscribers/maintenance-notices";
import { addServerReflection } from "./grpc/reflection";
import { auditLogService } from "./audit/service";
import { errorsAndLogging } from "./rpc-interceptors";
import { storableTextOnly } from "./request-text";
import { auditInterceptor } from "./audit/interceptor";
import { apiKeyAttribution } from "./audit/attribution";
import { AuditStore } from "./audit/store";
import type { Pipeline } from "./pipeline";
import type { CheckScheduler } from "./scheduling/scheduler";
import type { Statuses } from "./status/statuses";
import { incidentService } from "./alerting/incident-service";
import type { Acknowledgements } from "./alerting/acknowledgements";
import type { HeartbeatPings } from "./heartbeats/pings";
import { readableQuery, REQUEST_COMPRESSIONS } from "./readable-requests";
import { strictRoutes } from "./rpc-requests";
import { DEFAULT_CONSOLE_DIR, loadConsoleFiles } from "./console/files";
import { OverviewWakes, type WakeSettings } from "./monitors/overview-wakes";
import { rpcHandler } from "./http/rpc-handler";

export interface ApiServerOptions {
  /** The events of maintenance windows (the pipeline's, which its sweep tells of starts and ends); the server's own when not given. Status page subscribers listen to them. */
  maintenanceEvents?: MaintenanceEventHub;
  prisma: PrismaClient;
  scheduler: CheckScheduler;
  /** What notification channels need: the providers' deployment settings and the key their secrets are encrypted with. */
  notifications: { settings: ProviderSettings; secrets: SecretBox };
  statuses: Statuses;
  /** Acknowledging incidents, by the API and by the links in alert messages. */
  acknowledgements: Acknowledgements;
  pings: HeartbeatPings;
  /** What tells the public pages (here and on the other control planes) that a page changed. */
  pageChanges: Changes;
  /** What tells the overview watches (here and on the other control planes) that a workspace's monitors changed or were checked. */
  monitorChanges: Changes;
  /** Which API keys and sessions callers may use, and how a revocation reaches every control plane. */
  verifiedKeys: VerifiedKeys;
  verifiedSessions: VerifiedSessions;
  revocations: Revocations;
  /** The deployment's Redis (the pipeline's connection) for what every control plane counts together: sign-in attempts. */
  redis: SharedRedis;
  logger: Logger;
  port: number;
  host: string;
  /** Whether GET /metrics answers (METRICS_ENABLED); default true. */
  metricsEnabled?: boolean;
  /** Request rates (RATE_LIMIT_*) and what a connection may hold (HTTP_*); default: the defaults of docs/limits.md. */
  rateLimits?: RateLimitSettings;
  connectionLimits?: ConnectionLimits;
  /** Monitors one workspace may have (MONITORS_PER_WORKSPACE); default DEFAULTS.monitorsPerWorkspace. */
  monitorsPerWorkspace?: number;
  /** Subscribers one status page may have (STATUS_PAGE_SUBSCRIBERS_MAX); default SUBSCRIBERS.defaultMaxPerPage. */
  subscribersPerPage?: number;
  /** Waits before each retry of a failed notice to a subscriber (NOTIFICATION_RETRY_DELAYS); default DEFAULT_RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
  /** RESERVED_DOMAINS: names no status page may take as its custom domain, besides PUBLIC_URL's host. */
  reservedDomains?: readonly string[];
  /** How long people's sessions last (SESSION_IDLE_DAYS, SESSION_MAX_DAYS). */
  sessionSettings?: SessionSettings;
  /** The built console served at /app/ (CONSOLE_DIR); default DEFAULT_CONSOLE_DIR, apps/console/dist. */
  consoleDir?: string;
  /** When overview watches wake (tests make them quicker); default DEFAULT_WAKES. */
  overviewWakes?: WakeSettings;
  /** Extra RPC routes on the same server (benchmarks compare against a trivial handler this way). */
  extraRoutes?: (router: ConnectRouter) => void;
}

/** What the API server takes from the check pipeline of the same process. */
export const apiPartsOf = (
  pipeline: Pipeline,
  redisPrefix: string,
): Pick<ApiServerOptions, "scheduler" | "statuses" | "acknowledgements" | "pings" | "pageChanges" | "monitorChanges" | "verifiedKeys" | "verifiedSessions" | "revocations" | "redis" | "maintenanceEvents"> => ({
  maintenanceEvents: pipeline.maintenanceEvents,
  scheduler: pipeline.scheduler,
  acknowledgements: pipeline.acknowledgements,
  pings: pipeline.pings,
  statuses: pipeline.statuses,
  pageChanges: pipeline.pageChanges,
  monitorChanges: pipeline.monitorChanges,
  verifiedKeys: pipeline.verifiedKeys,
  verifiedSessions: pipeline.verifiedSessions,
  revocations: pipeline.revocations,
  redis: { connection: pipeline.redis, prefix: redisPrefix },
});

/** Batches of a notice's subscribers sent at once per control plane: each is sent over the pooled SMTP transport. */
const NOTICE_BATCHES_AT_ONCE = 8;

// An unknown JSON key or enum name is a mistake to report, not something to drop silently.
// Zero values are written too ("totalFailed": "0"), so JSON readers see every field.
const JSON_OPTIONS = { ignoreUnknownFields: false, alwaysEmitImplicit: true };

/**
 * The public API on one port: MonitorService over Connect, gRPC and gRPC-Web
 * (HTTP/1.1 and h2c), gRPC reflection and health, and the plain HTTP endpoints.
 */
export async function startApiServer(options: ApiServerOptions): Promise<Listener> {
  const { prisma, logger, scheduler } = options;
  const reflected: DescService[] = [MonitorService, IncidentService, MaintenanceService, NotificationService, StatusPageService, AccountService, ApiKeyService, MemberService, SsoService, AuditLogService, Health];
  const { pageChanges } = options;
  const metricsSource = options.metricsEnabled === false ? null : { queue: scheduler.queue.bind(scheduler), redis: options.redis.connection, prefix: options.redis.prefix };
  const rates = new RequestRates(options.redis.connection, options.redis.prefix, options.rateLimits ?? REQUEST_LIMITS);
  const reservedDomains = reservedDomainsOf(options.notifications.settings.publicUrl, options.reservedDomains ?? []);
  const rateLimit = rateLimitGate(rates);
  const subscriptions = subscriptionsOf(prisma, options.notifications.secrets, options.subscribersPerPage ?? SUBSCRIBERS.defaultMaxPerPage);
  const notices = new SubscriberNotices(options.redis.connection, prisma, logger, {
    prefix: options.redis.prefix,
    settings: options.notifications.settings,
    tokens: subscriptions.tokens,
    secrets: options.notifications.secrets,
    concurrency: NOTICE_BATCHES_AT_ONCE,
    retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
  });
  notices.start();
  const maintenanceEvents = options.maintenanceEvents ?? new MaintenanceEventHub();
  maintenanceEvents.listen(maintenanceNotices(notices));
  const sessions = new UserSessions(prisma, options.verifiedSessions, options.revocations, { settings: options.sessionSettings });
  const callers = new Callers(options.verifiedKeys, sessions, new URL(options.notifications.settings.publicUrl).origin);
  const consoleSite = await loadConsoleFiles(options.consoleDir ?? DEFAULT_CONSOLE_DIR, logger);
  const wakes = new OverviewWakes(options.monitorChanges, options.overviewWakes);
  const handler = rpcHandler({
    logger,
    readMaxBytes: LIMITS.requestBodyBytes,
    acceptCompression: REQUEST_COMPRESSIONS,
    contextValues: rpcContextValues,
    requestGate: async (context) => {
      await rateLimit(context);
      await readableQuery(context);
    },
    interceptors: [errorsAndLogging(logger)],
    routes: strictRoutes(JSON_OPTIONS, (router) => {
      // Service options replace the adapter's interceptors rather than adding to them.
      const auditStore = new AuditStore(prisma);
      const audit = auditInterceptor(auditStore, apiKeyAttribution, logger);
      const authenticated = { interceptors: [errorsAndLogging(logger), authInterceptor(callers), storableTextOnly(), audit] };
      // The deployment has one address policy, read with the providers' settings (ALLOW_PRIVATE_TARGETS, ALLOWED_TARGET_CIDRS).
      const { addressPolicy } = options.notifications.settings;
      const quota = options.monitorsPerWorkspace ?? DEFAULTS.monitorsPerWorkspace;
      const monitors = monitorService(new MonitorRepository(prisma), scheduler, options.statuses, prisma, logger, addressPolicy, quota, wakes, options.monitorChanges, options.notifications.settings.publicUrl, options.pings);
      router.service(MonitorService, monitors, authenticated);
      router.service(IncidentService, incidentService(prisma, options.acknowledgements), authenticated);
      router.service(MaintenanceService, maintenanceService(new MaintenanceRepository(prisma), pageChanges, maintenanceEvents, logger), authenticated);
      const channels = new NotificationRepository(prisma, options.notifications.secrets);
      router.service(NotificationService, notificationService(channels, options.notifications.settings), authenticated);
      router.service(StatusPageService, statusPageService(new StatusPageRepository(prisma), pageChanges, reservedDomains, notices), authenticated);
      const mails = mailsByAddress(options.redis);
      const links = new AccountLinks(prisma, options.notifications.settings, mails);
      const secondFactor = new SecondFactor(prisma, options.notifications.secrets);
      const members = memberService({ prisma, invitations: new Invitations(prisma, secondFactor, attemptsByAccount(options.redis)), sessions, settings: options.notifications.settings, mailsByAddress: mails, links, logger });
      router.service(MemberService, members, {
        interceptors: [errorsAndLogging(logger), authInterceptor(callers, [MemberService.method.acceptInvitation]), storableTextOnly(), audit],
      });
      const account = accountService({ prisma, sessions, attemptsByAccount: attemptsByAccount(options.redis), audit: auditStore, secondFactor, links, logger });
      // A person's own account needs no workspace; the service records its own audit entries.
      router.service(AccountService, account, { interceptors: [errorsAndLogging(logger), personInterceptor(callers), storableTextOnly()] });
      router.service(ApiKeyService, apiKeyService(prisma, options.revocations), authenticated);
      router.service(AuditLogService, auditLogService(auditStore), authenticated);
      router.service(SsoService, ssoService(prisma, options.notifications.secrets, options.notifications.settings.publicUrl, sessions), {
        interceptors: [errorsAndLogging(logger), authInterceptor(callers, [], { ssoRecovery: true }), storableTextOnly(), audit],
      });
      router.service(Health, { check: () => ({ status: HealthCheckResponse_ServingStatus.SERVING }) });
      addServerReflection(router, reflected);
      options.extraRoutes?.(router);
    }),
    fallback: httpRoutes(prisma, { callers, sessions, revocations: options.revocations }, logger, { ...options.notifications, redis: options.redis, reservedDomains, subscriptions }, { statuses: options.statuses, pageChanges, rates }, metricsSource, consoleSite, options.acknowledgements, options.pings) as never,
  });
  const listener = await listenHttp1AndH2c(handler, { port: options.port, host: options.host, limits: options.connectionLimits ?? DEFAULT_CONNECTION_LIMITS });
  return {
    address: () => listener.address(),
    close: async () => {
      // Open watches end at once, as answers do, rather than being cut when the connections are dropped.
      wakes.close();
      await listener.close();
      await notices.close();
    },
  };
}
