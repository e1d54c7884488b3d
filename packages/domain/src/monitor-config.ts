import { z } from "zod";
import { HTTP_METHODS, JSON_COMPARATORS, NUMBER_COMPARATORS, RECORD_COMPARATORS, RECORD_TYPES, STRING_COMPARATORS } from "./comparators";
import { DEFAULTS, LIMITS, defaultDegradedAt } from "./limits";
import { PERIODICITIES, type Periodicity } from "./periodicity";
import { REGION_IDS, type RegionId } from "./regions";
import {
  boolean,
  headerName,
  headerValue,
  httpUrl,
  integer,
  isHttpUrl,
  isNumericText,
  list,
  oneOf,
  readableLine,
  requiredLine,
  readableText,
  set,
  text,
} from "./rules";
import { domainName, hostPort } from "./hosts";
import { jsonPathProblem } from "./json-path";
import { parseOrThrow } from "./validation";
import { ALERT_QUORUM_RULE, parseAlertQuorum } from "./status";
import { dependsOnField } from "./dependencies";
import { objectiveFields, objectivesRule } from "./slo";

const header = z.object({ key: headerName(), value: headerValue() });

const statusCodeAssertion = z.object({
  target: integer(LIMITS.statusCode),
  comparator: oneOf(NUMBER_COMPARATORS),
});
const assertionTarget = () => text(LIMITS.assertionTargetMaxChars);
const bodyAssertion = z.object({ target: assertionTarget(), comparator: oneOf(STRING_COMPARATORS) });
const headerAssertion = z.object({ key: headerName(), target: assertionTarget(), comparator: oneOf(STRING_COMPARATORS) });
const JSON_ORDERINGS: readonly string[] = ["gt", "gte", "lt", "lte"];
const jsonBodyAssertion = z
  .object({
    path: text(LIMITS.jsonPathMaxChars).superRefine((path, ctx) => {
      const problem = jsonPathProblem(path);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    comparator: oneOf(JSON_COMPARATORS),
    target: assertionTarget().default(""),
  })
  .superRefine(({ comparator, target }, ctx) => {
    // A target that cannot matter, or cannot be ordered, is a mistake to say at once rather than a check that never passes.
    if ((comparator === "exists" || comparator === "not_exists") && target !== "") {
      ctx.addIssue({ code: "custom", path: ["target"], message: `must be empty: ${comparator} takes no target` });
    }
    if (JSON_ORDERINGS.includes(comparator) && !isNumericText(target)) {
      ctx.addIssue({ code: "custom", path: ["target"], message: `must be a number: ${comparator} compares numbers` });
    }
  });
const recordAssertion = z.object({
  record: oneOf(RECORD_TYPES),
  target: assertionTarget(),
  comparator: oneOf(RECORD_COMPARATORS),
});

/**
 * An empty endpoint leaves the choice to the agent's OTLP defaults (its
 * OTEL_EXPORTER_OTLP_* settings, else a collector on localhost:4318), as an
 * OpenTelemetry exporter does when it is given no endpoint.
 */
const openTelemetry = z.object({
  endpoint: text(LIMITS.targetMaxChars)
    .refine((value) => value === "" || isHttpUrl(value), "must be an http:// or https:// OTLP endpoint URL")
    .default(""),
  headers: list(header, LIMITS.headersPerMonitor).default([]),
});

/** Fields every kind of monitor has, with the contract's defaults. */
const common = {
  name: requiredLine(LIMITS.nameMaxChars),
  periodicity: oneOf(PERIODICITIES as [Periodicity, ...Periodicity[]]),
  timeout: integer(LIMITS.timeoutMs).default(DEFAULTS.timeoutMs),
  retry: integer(LIMITS.retry).default(DEFAULTS.retry),
  degradedAt: integer(LIMITS.degradedAtMs).optional(),
  regions: set(oneOf(REGION_IDS as [RegionId, ...RegionId[]])).default([]),
  active: boolean().default(DEFAULTS.active),
  public: boolean().default(DEFAULTS.public),
  description: readableText(LIMITS.descriptionMaxChars).default(DEFAULTS.description),
  openTelemetry: openTelemetry.nullable().default(null),
  alertQuorum: text(16).refine((value) => parseAlertQuorum(value) !== null, ALERT_QUORUM_RULE).default(DEFAULTS.alertQuorum),
  confirmations: integer(LIMITS.confirmations).default(DEFAULTS.confirmations),
  recoveryConfirmations: integer(LIMITS.confirmations).default(DEFAULTS.confirmations),
  dependsOn: dependsOnField(),
  ...objectiveFields,
};

/**
 * A number of regions is refused above the regions the monitor names, so a quorum that can
 * never be reached is never stored; the merged configuration of an update is checked too,
 * so removing regions below it is refused as well. A monitor naming none is checked in the
 * deployment's DEFAULT_REGIONS, which change without it: there the number is capped at the
 * regions checked, as ALERT_QUORUM is.
 */
const quorumWithinRegions = (config: { alertQuorum: string; regions: readonly string[] }, ctx: z.core.$RefinementCtx) => {
  const rule = parseAlertQuorum(config.alertQuorum);
  if (typeof rule === "number" && config.regions.length > 0 && rule > config.regions.length) {
    ctx.addIssue({
      code: "custom",
      path: ["alertQuorum"],
      message: `must be at most the number of the monitor's regions (${config.regions.length}), not ${rule}`,
    });
  }
};

const withDegradedAt = <T extends { timeout: number; degradedAt?: number | undefined }>(config: T) => ({
  ...config,
  degradedAt: config.degradedAt ?? defaultDegradedAt(config.timeout),
});

export const httpMonitorSchema = z
  .object({
    ...common,
    url: httpUrl(LIMITS.targetMaxChars),
    method: oneOf(HTTP_METHODS).default(DEFAULTS.method),
    body: text(LIMITS.httpBodyMaxChars).default(DEFAULTS.body),
    headers: list(header, LIMITS.headersPerMonitor).default([]),
    followRedirects: boolean().default(DEFAULTS.followRedirects),
    traceHeader: boolean().default(DEFAULTS.traceHeader),
    certificateExpiryDays: integer(LIMITS.certificateExpiryDays).default(DEFAULTS.certificateExpiryDays),
    statusCodeAssertions: list(statusCodeAssertion, LIMITS.assertionsPerList).default([]),
    bodyAssertions: list(bodyAssertion, LIMITS.assertionsPerList).default([]),
    headerAssertions: list(headerAssertion, LIMITS.assertionsPerList).default([]),
    jsonBodyAssertions: list(jsonBodyAssertion, LIMITS.assertionsPerList).default([]),
  })
  .superRefine(quorumWithinRegions)
  .superRefine(objectivesRule)
  .transform(withDegradedAt);

export const tcpMonitorSchema = z
  .object({ ...common, uri: hostPort(LIMITS.targetMaxChars) })
  .superRefine(quorumWithinRegions)
  .superRefine(objectivesRule)
  .transform(withDegradedAt);

/** The statuses grpc.health.v1 answers (HealthCheckResponse.ServingStatus), by their proto names. */
export const GRPC_HEALTH_STATUSES = ["SERVING", "NOT_SERVING", "UNKNOWN", "SERVICE_UNKNOWN"] as const;
export type GrpcHealthStatus = (typeof GRPC_HEALTH_STATUSES)[number];

/**
 * Metadata names gRPC and HTTP/2 keep for themselves (the call's framing, deadline and encodings): one of the
 * monitor's would be dropped or break the call, so it is refused rather than silently not sent.
 */
const RESERVED_METADATA = /^(?:grpc-.*|te|content-type|connection|keep-alive|transfer-encoding|upgrade|host|proxy-connection)$/i;
const grpcMetadata = z.object({
  key: headerName().refine((key) => !RESERVED_METADATA.test(key), "must not be a name gRPC or HTTP/2 reserves (grpc-*, te, content-type, connection, host, ...)"),
  value: headerValue(),
});

export const grpcMonitorSchema = z
  .object({
    ...common,
    uri: hostPort(LIMITS.targetMaxChars),
    // A fully-qualified service name ("package.Service") or empty for the whole server; grpc.health.v1 sets no syntax.
    service: readableLine(LIMITS.grpcServiceMaxChars).default(""),
    tls: boolean().default(DEFAULTS.grpcTls),
    headers: list(grpcMetadata, LIMITS.headersPerMonitor).default([]),
    certificateExpiryDays: integer(LIMITS.certificateExpiryDays).default(DEFAULTS.certificateExpiryDays),
    expectedStatus: oneOf(GRPC_HEALTH_STATUSES).default(DEFAULTS.grpcExpectedStatus),
  })
  .superRefine(quorumWithinRegions)
  .superRefine(objectivesRule)
  .transform(withDegradedAt);

export const dnsMonitorSchema = z
  .object({
    ...common,
    uri: domainName(LIMITS.targetMaxChars),
    recordAssertions: list(recordAssertion, LIMITS.assertionsPerList).default([]),
  })
  .superRefine(quorumWithinRegions)
  .superRefine(objectivesRule)
  .transform(withDegradedAt);

export type HttpMonitorConfig = z.output<typeof httpMonitorSchema>;
export type TcpMonitorConfig = z.output<typeof tcpMonitorSchema>;
export type DnsMonitorConfig = z.output<typeof dnsMonitorSchema>;
export type GrpcMonitorConfig = z.output<typeof grpcMonitorSchema>;
export type Header = z.output<typeof header>;
export type OpenTelemetryConfig = z.output<typeof openTelemetry>;
export type StatusCodeAssertion = z.output<typeof statusCodeAssertion>;
export type BodyAssertion = z.output<typeof bodyAssertion>;
export type HeaderAssertion = z.output<typeof headerAssertion>;
export type JsonBodyAssertion = z.output<typeof jsonBodyAssertion>;
export type RecordAssertion = z.output<typeof recordAssertion>;

export type MonitorKind = "http" | "tcp" | "dns" | "grpc";
export interface MonitorConfigByKind {
  http: HttpMonitorConfig;
  tcp: TcpMonitorConfig;
  dns: DnsMonitorConfig;
  grpc: GrpcMonitorConfig;
}
export type MonitorConfig = MonitorConfigByKind[MonitorKind];

const schemas = { http: httpMonitorSchema, tcp: tcpMonitorSchema, dns: dnsMonitorSchema, grpc: grpcMonitorSchema } as const;

/** Every kind an agent checks (heartbeats are pushed to the control plane, not checked). */
export const MONITOR_KINDS = Object.keys(schemas) as MonitorKind[];

/**
 * A monitor's configuration as a client sent it: any field may be missing
 * (its default applies) or hold a value of the wrong kind (it is reported).
 */
export type MonitorInput = Record<string, unknown>;

/**
 * Validates a whole configuration and fills in every default. Used for a
 * create, and for an update on the stored configuration merged with the
 * changes, so both follow exactly the same rules.
 * @throws ValidationError naming each field under `monitor.`
 */
export function parseMonitorConfig<K extends MonitorKind>(kind: K, input: MonitorInput): MonitorConfigByKind[K] {
  return parseOrThrow(schemas[kind], input, "monitor") as MonitorConfigByKind[K];
}

/** Field names of each kind, as the API and the provider (in camelCase) spell them. */
export const MONITOR_FIELDS: { [K in MonitorKind]: readonly (keyof MonitorConfigByKind[K])[] } = {
  http: Object.keys(httpMonitorSchema.in.shape) as (keyof HttpMonitorConfig)[],
  tcp: Object.keys(tcpMonitorSchema.in.shape) as (keyof TcpMonitorConfig)[],
  dns: Object.keys(dnsMonitorSchema.in.shape) as (keyof DnsMonitorConfig)[],
  grpc: Object.keys(grpcMonitorSchema.in.shape) as (keyof GrpcMonitorConfig)[],
};
