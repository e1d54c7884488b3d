import { zodResolver } from "@hookform/resolvers/zod";
import {
  DEFAULTS,
  dnsMonitorSchema,
  externalIdRule,
  grpcMonitorSchema,
  httpMonitorSchema,
  monitorInputFromMessage,
  tcpMonitorSchema,
  type MonitorConfigByKind,
  type MonitorKind,
} from "@vigil/domain/monitors";
import type { DNSMonitor, GRPCMonitor, HTTPMonitor, TCPMonitor } from "@vigil/proto";
import type { Resolver } from "react-hook-form";
import { z } from "zod";

/**
 * A monitor form's values: the request's fields under the API's names (so
 * that the rules' paths, `headers.0.key`, are the form's field names), for
 * every kind (a kind's schema ignores the others' fields), plus whether
 * metrics are exported, which the API spells as `openTelemetry` being null.
 */
export interface MonitorFormValues {
  name: string;
  description: string;
  externalId: string;
  url: string;
  uri: string;
  periodicity: string | undefined;
  method: string;
  body: string;
  headers: { key: string; value: string }[];
  followRedirects: boolean;
  traceHeader: boolean;
  certificateExpiryDays: number | undefined;
  service: string;
  tls: boolean;
  expectedStatus: string;
  timeout: number | undefined;
  retry: number | undefined;
  degradedAt: number | undefined;
  regions: string[];
  alertQuorum: string;
  confirmations: number | undefined;
  recoveryConfirmations: number | undefined;
  dependsOn: string[];
  availabilityObjective: number | undefined;
  latencyObjectiveMs: number | undefined;
  latencyObjectivePercent: number | undefined;
  active: boolean;
  public: boolean;
  statusCodeAssertions: { target: number | undefined; comparator: string }[];
  bodyAssertions: { target: string; comparator: string }[];
  headerAssertions: { key: string; target: string; comparator: string }[];
  jsonBodyAssertions: { path: string; comparator: string; target: string }[];
  recordAssertions: { record: string; target: string; comparator: string }[];
  exportsMetrics: boolean;
  openTelemetry: { endpoint: string; headers: { key: string; value: string }[] };
}

/** What a valid form gives: the kind's configuration, defaults filled in, and the external id. */
export type ValidMonitor<K extends MonitorKind> = MonitorConfigByKind[K] & { externalId: string };

/** A new monitor's values: the domain's defaults; degradedAt empty, which the domain derives from the timeout. */
export const NEW_MONITOR: MonitorFormValues = {
  name: "",
  description: DEFAULTS.description,
  externalId: "",
  url: "",
  uri: "",
  periodicity: undefined,
  method: DEFAULTS.method,
  body: DEFAULTS.body,
  headers: [],
  followRedirects: DEFAULTS.followRedirects,
  traceHeader: DEFAULTS.traceHeader,
  certificateExpiryDays: DEFAULTS.certificateExpiryDays,
  service: "",
  tls: DEFAULTS.grpcTls,
  expectedStatus: DEFAULTS.grpcExpectedStatus,
  timeout: DEFAULTS.timeoutMs,
  retry: DEFAULTS.retry,
  degradedAt: undefined,
  regions: [],
  alertQuorum: DEFAULTS.alertQuorum,
  confirmations: DEFAULTS.confirmations,
  recoveryConfirmations: DEFAULTS.confirmations,
  dependsOn: [],
  // 0 is no objective.
  availabilityObjective: 0,
  latencyObjectiveMs: 0,
  latencyObjectivePercent: 0,
  active: DEFAULTS.active,
  public: DEFAULTS.public,
  statusCodeAssertions: [],
  bodyAssertions: [],
  headerAssertions: [],
  jsonBodyAssertions: [],
  recordAssertions: [],
  exportsMetrics: false,
  openTelemetry: { endpoint: "", headers: [] },
};

/** A stored monitor's values, as GetMonitor answers it. */
export function valuesOfMonitor<K extends MonitorKind>(kind: K, message: { http: HTTPMonitor; tcp: TCPMonitor; dns: DNSMonitor; grpc: GRPCMonitor }[K]): MonitorFormValues {
  const input = monitorInputFromMessage(kind, message) as Partial<MonitorFormValues> & { openTelemetry?: MonitorFormValues["openTelemetry"] };
  const defined = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  return {
    ...NEW_MONITOR,
    ...defined,
    externalId: message.externalId ?? "",
    exportsMetrics: input.openTelemetry !== undefined,
    openTelemetry: input.openTelemetry ?? NEW_MONITOR.openTelemetry,
  };
}

const SCHEMAS = { http: httpMonitorSchema, tcp: tcpMonitorSchema, dns: dnsMonitorSchema, grpc: grpcMonitorSchema } as const;

/** The API's rules of `kind`, run in the browser on what the form would send. */
export function monitorResolver<K extends MonitorKind>(kind: K): Resolver<MonitorFormValues, unknown, ValidMonitor<K>> {
  const resolve = zodResolver(z.object({ externalId: externalIdRule }).and(SCHEMAS[kind]));
  return (values, context, options) =>
    resolve({ ...values, openTelemetry: values.exportsMetrics ? values.openTelemetry : null } as never, context, options as never) as never;
}

/** An optional number field: empty is "not given" (the domain's default applies), anything else is checked as a number. */
export const asNumber = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : Number(value));
/** A select whose empty choice means "not given". */
export const orUndefined = (value: unknown) => (value === "" ? undefined : value);

/**
 * A form field's name for a field path of the API (`monitor.headers[0].key`
 * -> `headers.0.key`); undefined for what the form has no field for (`id`).
 */
export function formFieldOf(path: string): string | undefined {
  const name = path.replace(/^monitor\./, "").replace(/\[(\d+)\]/g, ".$1");
  return name.split(".")[0]! in NEW_MONITOR ? name : undefined;
}
