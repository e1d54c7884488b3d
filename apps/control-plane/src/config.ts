import { resolve } from "node:path";
import { z } from "zod";
import type { DatabaseTarget } from "@vigil/db";
import { DEFAULT_QUORUM, REGION_IDS, isRegionId, parseQuorumRule, type QuorumRule, type RegionId, parseEnv } from "@vigil/domain";
import { providerSettingsFromEnv, type ProviderSettings } from "@vigil/notifications";
import { DEFAULT_RETRY_DELAYS_MS, parseRetryDelays } from "./alerting/retry-schedule";
import { ENCRYPTION_KEY_RULE, decodeEncryptionKey } from "./notifications/secrets";

/** Every environment variable the control plane reads, with its default. */
const unsetIfEmpty = (value: unknown) => (value === "" ? undefined : value);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z.preprocess(unsetIfEmpty, z.url().optional()),
  DATA_DIR: z.string().min(1).default(".vigil/data"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  REDIS_URL: z.string().min(1).default("redis://127.0.0.1:6390"),
  REDIS_PREFIX: z.string().min(1).default("vigil"),
  DEFAULT_REGIONS: z
    .string()
    .default("hostA-ams")
    .transform((value) => value.split(",").map((r) => r.trim()).filter(Boolean))
    .refine((regions) => regions.length > 0 && regions.every(isRegionId), {
      message: `must be a comma-separated list of region ids (${REGION_IDS.join(", ")})`,
    }),
  RESULT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(14),
  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(5).default(300),
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
  NOTIFICATION_RETRY_DELAYS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === "") return [...DEFAULT_RETRY_DELAYS_MS];
      const delays = parseRetryDelays(value);
      if (delays === null) ctx.addIssue({ code: "custom", message: "must be a comma-separated list of seconds" });
      return delays ?? [];
    }),
});

export interface ControlPlaneConfig {
  port: number;
  host: string;
  /** PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite in DATA_DIR. */
  database: DatabaseTarget;
  dataDir: string;
  logLevel: z.output<typeof envSchema>["LOG_LEVEL"];
  redisUrl: string;
  redisPrefix: string;
  /** Where monitors without regions of their own are checked. */
  defaultRegions: RegionId[];
  resultRetentionDays: number;
  reconcileIntervalMs: number;
  /** The key channel secrets are encrypted with (ENCRYPTION_KEY); unset: the key file in DATA_DIR. */
  encryptionKey: Buffer | undefined;
  /** What the notification providers need from the deployment (SMTP_URL, TELEGRAM_BOT_TOKEN, …). */
  providerSettings: ProviderSettings;
  /** How many of a monitor's regions must fail before it does (ALERT_QUORUM). */
  quorum: QuorumRule;
  notificationConcurrency: number;
  /** Waits before each retry of a failed delivery. */
  retryDelaysMs: number[];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  const e = parseEnv(envSchema, env);
  const dataDir = resolve(e.DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    database: e.DATABASE_URL ? { kind: "postgres", url: e.DATABASE_URL } : { kind: "pglite", dataDir },
    dataDir,
    logLevel: e.LOG_LEVEL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    defaultRegions: e.DEFAULT_REGIONS as RegionId[],
    resultRetentionDays: e.RESULT_RETENTION_DAYS,
    reconcileIntervalMs: e.RECONCILE_INTERVAL_SECONDS * 1000,
    encryptionKey: e.ENCRYPTION_KEY,
    providerSettings: providerSettingsFromEnv(env, `http://localhost:${e.PORT}`),
    quorum: e.ALERT_QUORUM,
    notificationConcurrency: e.NOTIFICATION_CONCURRENCY,
    retryDelaysMs: e.NOTIFICATION_RETRY_DELAYS,
  };
}

/** The Unix socket the running service answers administration on (embedded database only). */
export const adminSocketPath = (dataDir: string) => resolve(dataDir, "admin.sock");
