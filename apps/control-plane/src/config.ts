import { resolve } from "node:path";
import { z } from "zod";
import { DEFAULT_POOL_SIZE, type DatabaseTarget } from "@vigil/db";
import { ACCOUNTS, ADDRESS_POLICY_SETTING_NAMES, DAILY_AGGREGATE_RETENTION_DAYS, DEFAULT_CONNECTION_LIMITS, REQUEST_LIMITS, SUBSCRIBERS, type ConnectionLimits, DEFAULTS, DEFAULT_QUORUM, REGION_IDS, isDomainName, isRegionId, parseQuorumRule, type QuorumRule, type RegionId, parseEnv } from "@vigil/domain";
import { PROVIDER_SETTING_NAMES, providerSettingsFromEnv, type ProviderSettings } from "@vigil/notifications";
import { redisEnvShape, redisSettingsFromEnv, refineRedisEnv, type RedisTarget } from "@vigil/queue";
import { DEFAULT_RETRY_DELAYS_MS, parseRetryDelays } from "./alerting/retry-schedule";
import { GATHER_MS } from "./results/consumer";
import { SILENCE_SWEEP_MS } from "./heartbeats/silence";
import { defaultIngestLanes } from "./results/lanes";
import { ENCRYPTION_KEY_RULE, decodeEncryptionKey } from "./notifications/secrets";
import type { RateLimitSettings } from "./limits/request-rates";
import type { SessionSettings } from "./accounts/sessions";

/** Every environment variable the control plane reads, with its default. */
const unsetIfEmpty = (value: unknown) => (value === "" ? undefined : value);
/** A whole number of at least 1 (rates, counts, seconds), with its default. */
const positiveInt = (fallback: number) => z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).default(fallback));

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z.preprocess(unsetIfEmpty, z.url().optional()),
  DATABASE_DIRECT_URL: z.preprocess(unsetIfEmpty, z.url().optional()),
  DATABASE_POOL_SIZE: positiveInt(DEFAULT_POOL_SIZE),
  DATA_DIR: z.string().min(1).default(".vigil/data"),
  CONSOLE_DIR: z.preprocess(unsetIfEmpty, z.string().optional()),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ...redisEnvShape,
  DEFAULT_REGIONS: z
    .string()
    .default("hostA-ams")
    .transform((value) => value.split(",").map((r) => r.trim()).filter(Boolean))
    .refine((regions) => regions.length > 0 && regions.every(isRegionId), {
      message: `must be a comma-separated list of region ids (${REGION_IDS.join(", ")})`,
    }),
  RESULT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(14),
  DAILY_AGGREGATE_RETENTION_DAYS: z.preprocess(
    unsetIfEmpty,
    z.coerce.number().int().min(DAILY_AGGREGATE_RETENTION_DAYS.min).max(DAILY_AGGREGATE_RETENTION_DAYS.max).default(DAILY_AGGREGATE_RETENTION_DAYS.default),
  ),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(DEFAULTS.auditRetentionDays),
  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(5).default(300),
  HEARTBEAT_SWEEP_SECONDS: z.coerce.number().int().min(0).max(3_600).default(SILENCE_SWEEP_MS / 1000),
  METRICS_ENABLED: z
    .preprocess(unsetIfEmpty, z.enum(["true", "false"], { error: "must be true or false" }).default("true"))
    .transform((value) => value === "true"),
  ENCRYPTION_KEY: z.preprocess(unsetIfEmpty, z.string().optional()).transform((value, ctx) => {
    if (value === undefined) return undefined;
    const key = decodeEncryptionKey(value);
    if (!key) ctx.addIssue({ code: "custom", message: ENCRYPTION_KEY_RULE });
    return key ?? undefined;
  }),
  ALERT_QUORUM: z
    .string()
    .default(String(DEFAULT_QUORUM))
    .transform((value, ctx) => {
      const rule = parseQuorumRule(value);
      if (rule === null) ctx.addIssue({ code: "custom", message: "must be half, majority, all or a number of regions" });
      return rule ?? DEFAULT_QUORUM;
    }),
  NOTIFICATION_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(100),
  INGEST_LANES: z.coerce.number().int().min(1).max(16).optional(),
  INGEST_GATHER_MS: z.coerce.number().int().min(0).max(5_000).default(GATHER_MS),
  NOTIFICATION_RETRY_DELAYS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === "") return [...DEFAULT_RETRY_DELAYS_MS];
      const delays = parseRetryDelays(value);
      if (delays === null) ctx.addIssue({ code: "custom", message: "must be a comma-separated list of seconds" });
      return delays ?? [];
    }),
  RATE_LIMIT_API_KEY: positiveInt(REQUEST_LIMITS.apiCallsPerKeyPerSecond),
  RATE_LIMIT_API_ADDRESS: positiveInt(REQUEST_LIMITS.apiCallsPerAddressPerSecond),
  RATE_LIMIT_PAGE_VIEWS: positiveInt(REQUEST_LIMITS.pageViewsPerAddressPerMinute),
  MONITORS_PER_WORKSPACE: positiveInt(DEFAULTS.monitorsPerWorkspace),
  STATUS_PAGE_SUBSCRIBERS_MAX: positiveInt(SUBSCRIBERS.defaultMaxPerPage),
  SESSION_IDLE_DAYS: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(365).default(ACCOUNTS.sessionIdleDays)),
  SESSION_MAX_DAYS: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(365).default(ACCOUNTS.sessionMaxDays)),
  HTTP_MAX_CONNECTIONS: positiveInt(DEFAULT_CONNECTION_LIMITS.maxConnections),
  HTTP_MAX_HEADER_BYTES: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1024).max(1024 * 1024).default(DEFAULT_CONNECTION_LIMITS.maxHeaderBytes)),
  HTTP_HEADERS_TIMEOUT_SECONDS: positiveInt(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs / 1000),
  HTTP_REQUEST_TIMEOUT_SECONDS: positiveInt(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs / 1000),
  HTTP_IDLE_TIMEOUT_SECONDS: positiveInt(DEFAULT_CONNECTION_LIMITS.idleTimeoutMs / 1000),
  RESERVED_DOMAINS: z
    .string()
    .default("")
    .transform((value) => value.split(",").map((name) => name.trim()).filter(Boolean))
    .refine((names) => names.every(isDomainName), { message: "must be a comma-separated list of domain names" }),
})
  .superRefine(refineRedisEnv)
  .superRefine((env, ctx) => {
    if (env.DATABASE_DIRECT_URL !== undefined && env.DATABASE_URL === undefined) {
      ctx.addIssue({ code: "custom", path: ["DATABASE_DIRECT_URL"], message: "is only used with DATABASE_URL (the embedded database needs none)" });
    }
    if (env.SESSION_IDLE_DAYS > env.SESSION_MAX_DAYS) {
      ctx.addIssue({ code: "custom", path: ["SESSION_IDLE_DAYS"], message: "must not be longer than SESSION_MAX_DAYS" });
    }
    // Node refuses a headers timeout longer than the request's: the request would end first anyway.
    if (env.HTTP_HEADERS_TIMEOUT_SECONDS > env.HTTP_REQUEST_TIMEOUT_SECONDS) {
      ctx.addIssue({ code: "custom", path: ["HTTP_HEADERS_TIMEOUT_SECONDS"], message: "must not be longer than HTTP_REQUEST_TIMEOUT_SECONDS" });
    }
  });

/** The name of every environment variable the control plane reads (deployment files are checked against it). */
export const CONTROL_PLANE_SETTING_NAMES: readonly string[] = [...Object.keys(envSchema.shape), ...PROVIDER_SETTING_NAMES, ...ADDRESS_POLICY_SETTING_NAMES];

export interface ControlPlaneConfig {
  port: number;
  host: string;
  /** PostgreSQL when DATABASE_URL is set (with DATABASE_DIRECT_URL for migrations and the change feed), otherwise embedded PGlite in DATA_DIR. */
  database: DatabaseTarget;
  /** Connections to PostgreSQL this process keeps open (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  dataDir: string;
  logLevel: z.output<typeof envSchema>["LOG_LEVEL"];
  redis: RedisTarget;
  redisPrefix: string;
  /** Where monitors without regions of their own are checked. */
  defaultRegions: RegionId[];
  resultRetentionDays: number;
  /** Daily aggregates (status page bars, SLOs, monthly reports) older than this many days are deleted. */
  dailyAggregateRetentionDays: number;
  /** Audit log entries older than this many days are deleted. */
  auditRetentionDays: number;
  reconcileIntervalMs: number;
  /** Whether the API port answers GET /metrics (METRICS_ENABLED). */
  metricsEnabled: boolean;
  /** Requests per API key, client address and page (RATE_LIMIT_*). */
  rateLimits: RateLimitSettings;
  /** Monitors one workspace may have (MONITORS_PER_WORKSPACE). */
  monitorsPerWorkspace: number;
  /** Subscribers one status page may have (STATUS_PAGE_SUBSCRIBERS_MAX). */
  subscribersPerPage: number;
  /** SESSION_IDLE_DAYS and SESSION_MAX_DAYS. */
  sessions: SessionSettings;
  /** What a connection to the API port may hold, and for how long (HTTP_*). */
  connectionLimits: ConnectionLimits;
  /** Names no status page may take as its custom domain, besides PUBLIC_URL's host (RESERVED_DOMAINS). */
  reservedDomains: string[];
  /** The built console served at /app/ (CONSOLE_DIR); unset: apps/console/dist of this installation. */
  consoleDir: string | undefined;
  /** The key channel secrets are encrypted with (ENCRYPTION_KEY); unset: the key file in DATA_DIR. */
  encryptionKey: Buffer | undefined;
  /** What the notification providers need from the deployment (SMTP_URL, TELEGRAM_BOT_TOKEN, …). */
  providerSettings: ProviderSettings;
  /** How many of a monitor's regions must fail before it does (ALERT_QUORUM). */
  quorum: QuorumRule;
  notificationConcurrency: number;
  /** Transactions storing parts of each batch of results at once (INGEST_LANES). */
  ingestLanes: number;
  /** How long a batch of results that is not full waits for more before it is stored (INGEST_GATHER_MS). */
  ingestGatherMs: number;
  /** Waits before each retry of a failed delivery. */
  retryDelaysMs: number[];
  /** How often this control plane looks for silent heartbeat monitors (HEARTBEAT_SWEEP_SECONDS); 0: never. */
  heartbeatSweepMs: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  const e = parseEnv(envSchema, env);
  const dataDir = resolve(e.DATA_DIR);
  const redis = redisSettingsFromEnv(e);
  const database: DatabaseTarget = e.DATABASE_URL
    ? { kind: "postgres", url: e.DATABASE_URL, ...(e.DATABASE_DIRECT_URL === undefined ? {} : { directUrl: e.DATABASE_DIRECT_URL }) }
    : { kind: "pglite", dataDir };
  return {
    port: e.PORT,
    host: e.HOST,
    database,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    dataDir,
    logLevel: e.LOG_LEVEL,
    redis: redis.target,
    redisPrefix: redis.prefix,
    defaultRegions: e.DEFAULT_REGIONS as RegionId[],
    resultRetentionDays: e.RESULT_RETENTION_DAYS,
    dailyAggregateRetentionDays: e.DAILY_AGGREGATE_RETENTION_DAYS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    reconcileIntervalMs: e.RECONCILE_INTERVAL_SECONDS * 1000,
    metricsEnabled: e.METRICS_ENABLED,
    rateLimits: {
      apiCallsPerKeyPerSecond: e.RATE_LIMIT_API_KEY,
      apiCallsPerAddressPerSecond: e.RATE_LIMIT_API_ADDRESS,
      pageViewsPerAddressPerMinute: e.RATE_LIMIT_PAGE_VIEWS,
    },
    monitorsPerWorkspace: e.MONITORS_PER_WORKSPACE,
    subscribersPerPage: e.STATUS_PAGE_SUBSCRIBERS_MAX,
    sessions: { idleDays: e.SESSION_IDLE_DAYS, maxDays: e.SESSION_MAX_DAYS },
    connectionLimits: {
      maxConnections: e.HTTP_MAX_CONNECTIONS,
      maxHeaderBytes: e.HTTP_MAX_HEADER_BYTES,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_SECONDS * 1000,
    },
    reservedDomains: e.RESERVED_DOMAINS,
    consoleDir: e.CONSOLE_DIR && resolve(e.CONSOLE_DIR),
    encryptionKey: e.ENCRYPTION_KEY,
    providerSettings: providerSettingsFromEnv(env, `http://localhost:${e.PORT}`),
    quorum: e.ALERT_QUORUM,
    notificationConcurrency: e.NOTIFICATION_CONCURRENCY,
    ingestLanes: e.INGEST_LANES ?? defaultIngestLanes(database),
    ingestGatherMs: e.INGEST_GATHER_MS,
    retryDelaysMs: e.NOTIFICATION_RETRY_DELAYS,
    heartbeatSweepMs: e.HEARTBEAT_SWEEP_SECONDS * 1000,
  };
}

/** The Unix socket the running service answers administration on (embedded database only). */
export const adminSocketPath = (dataDir: string) => resolve(dataDir, "admin.sock");
