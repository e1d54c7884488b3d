import { z } from "zod";
import { redisEnvShape, redisSettingsFromEnv, refineRedisEnv, type RedisTarget } from "@vigil/queue";
import { ADDRESS_POLICY_SETTING_NAMES, AddressPolicy } from "@vigil/domain/address-policy";
import { REGION_IDS, isRegionId, type RegionId } from "@vigil/domain/regions";
import { parseEnv } from "@vigil/domain/validation";
import type { OtlpProtocol } from "./metrics-export";
import type { SpanQueueSettings } from "./span-export";
import { MAX_IN_FLIGHT } from "./in-flight-limit";
import { MAX_CHECK_THREADS, defaultCheckThreads } from "./check-threads";

const unsetIfEmpty = (value: unknown) => (value === "" ? undefined : value);
const milliseconds = () => z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).optional());

/** "127.0.0.1:5353, 10.0.0.2" -> ["127.0.0.1:5353", "10.0.0.2"]; empty or unset -> the system's resolvers. */
const serverList = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((server) => server.trim())
        .filter((server) => server !== ""),
    )
    .optional(),
);

const OTLP_PROTOCOLS = ["http/protobuf", "http/json"] as const;
/** Only OTLP over HTTP, as the contract says: "grpc" is refused at start rather than ignored. */
const otlpProtocol = z.preprocess(
  unsetIfEmpty,
  z.enum(OTLP_PROTOCOLS, { error: (issue) => `"${String(issue.input)}" is not supported: use ${OTLP_PROTOCOLS.join(" or ")} (OTLP over HTTP)` }).optional(),
);

/** A whole number from `min` to `max`, whose every refusal says so (`hint`: what the number is); unset when empty. */
const wholeNumber = (min: number, max: number, hint = "") => {
  const error = `must be a whole number from ${min} to ${max}${hint}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/** Every environment variable the agent reads, with its default. */
const envSchema = z.object({
  REGION: z.preprocess(
    unsetIfEmpty,
    z
      .string({ error: `is required: one of ${REGION_IDS.join(", ")}` })
      .refine(isRegionId, { error: (issue) => `"${String(issue.input)}" is not a region; use one of ${REGION_IDS.join(", ")}` }),
  ),
  ...redisEnvShape,
  // Unset: derived from the open-file limit and the heap (in-flight-limit.ts).
  CONCURRENCY: z.preprocess(
    unsetIfEmpty,
    wholeNumber(1, MAX_IN_FLIGHT, "; leave it unset to let the agent derive it from its open-file limit and memory").optional(),
  ),
  CHECK_THREADS: z.preprocess(unsetIfEmpty, wholeNumber(1, MAX_CHECK_THREADS).optional()),
  DNS_SERVERS: serverList,
  HEALTH_PORT: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(65_535).default(8081)),
  HEALTH_HOST: z.preprocess(unsetIfEmpty, z.string().min(1).default("0.0.0.0")),
  LOG_LEVEL: z.preprocess(
    unsetIfEmpty,
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  // OpenTelemetry export (monitors that set openTelemetry), with the standard OTel variable names.
  // The exporter itself also reads OTEL_EXPORTER_OTLP_(METRICS_)ENDPOINT and _HEADERS, used for
  // monitors whose endpoint is empty.
  OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: otlpProtocol,
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
  OTEL_METRIC_EXPORT_INTERVAL: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(100).default(15_000)),
  OTEL_METRIC_EXPORT_TIMEOUT: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(100).default(10_000)),
  // Check spans (span-export.ts), batched as the SDK's batch span processor is, with its variables and defaults.
  OTEL_BSP_SCHEDULE_DELAY: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).default(5_000)),
  OTEL_BSP_EXPORT_TIMEOUT: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(100).default(30_000)),
  OTEL_BSP_MAX_QUEUE_SIZE: z.preprocess(unsetIfEmpty, wholeNumber(1, 1_000_000).default(2_048)),
  // Advanced: how fast a job whose agent died runs again elsewhere (BullMQ's
  // lockDuration and stalledInterval, both 30 s by default). Shorter values
  // recover sooner but cost more Redis traffic; tests use them.
  LOCK_DURATION_MS: milliseconds(),
  STALLED_INTERVAL_MS: milliseconds(),
}).superRefine(refineRedisEnv);

/**
 * The name of every environment variable the agent reads (deployment files are
 * checked against it), with those the OTLP exporter reads itself.
 */
export const AGENT_SETTING_NAMES: readonly string[] = [
  ...Object.keys(envSchema.shape),
  ...ADDRESS_POLICY_SETTING_NAMES,
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
];

export interface AgentConfig {
  region: RegionId;
  redis: RedisTarget;
  redisPrefix: string;
  /** CONCURRENCY: checks in flight at once; undefined to derive it (chooseInFlightLimit). */
  concurrency: number | undefined;
  /** CHECK_THREADS: threads that run the checks, apart from the main thread's Redis work. */
  checkThreads: number;
  /** DNS servers for DNS checks and host names; the system's when undefined. */
  dnsServers: string[] | undefined;
  healthPort: number;
  healthHost: string;
  logLevel: z.output<typeof envSchema>["LOG_LEVEL"];
  lockDurationMs: number | undefined;
  stalledIntervalMs: number | undefined;
  otlp: { protocol: OtlpProtocol; intervalMs: number; timeoutMs: number; spans: SpanQueueSettings };
  /** Which addresses checks and per-monitor OTLP exports may connect to (ALLOW_PRIVATE_TARGETS, ALLOWED_TARGET_CIDRS). */
  addressPolicy: AddressPolicy;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const e = parseEnv(envSchema, env);
  const redis = redisSettingsFromEnv(e);
  return {
    region: e.REGION as RegionId,
    redis: redis.target,
    redisPrefix: redis.prefix,
    concurrency: e.CONCURRENCY,
    checkThreads: e.CHECK_THREADS ?? defaultCheckThreads(),
    dnsServers: e.DNS_SERVERS && e.DNS_SERVERS.length > 0 ? e.DNS_SERVERS : undefined,
    healthPort: e.HEALTH_PORT,
    healthHost: e.HEALTH_HOST,
    logLevel: e.LOG_LEVEL,
    lockDurationMs: e.LOCK_DURATION_MS,
    stalledIntervalMs: e.STALLED_INTERVAL_MS,
    otlp: {
      protocol: e.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
      intervalMs: e.OTEL_METRIC_EXPORT_INTERVAL,
      // The SDK refuses a timeout longer than the interval.
      timeoutMs: Math.min(e.OTEL_METRIC_EXPORT_TIMEOUT, e.OTEL_METRIC_EXPORT_INTERVAL),
      spans: { scheduledDelayMs: e.OTEL_BSP_SCHEDULE_DELAY, timeoutMs: e.OTEL_BSP_EXPORT_TIMEOUT, maxQueueSize: e.OTEL_BSP_MAX_QUEUE_SIZE },
    },
    addressPolicy: AddressPolicy.fromEnv(env),
  };
}
