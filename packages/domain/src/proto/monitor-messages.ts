import type { DescMessage } from "@bufbuild/protobuf";
import type { FieldMask, Timestamp } from "@bufbuild/protobuf/wkt";
import {
  DNSMonitorSchema,
  GRPCMonitorSchema,
  HTTPMonitorSchema,
  TCPMonitorSchema,
  type DNSMonitor,
  type GRPCMonitor,
  type Header as HeaderMessage,
  type HTTPMonitor,
  type OpenTelemetryConfig as OpenTelemetryMessage,
  type TCPMonitor,
} from "@vigil/proto";
import type { MonitorStatus } from "../comparators";
import {
  MONITOR_FIELDS,
  type Header,
  type MonitorConfigByKind,
  type MonitorInput,
  type MonitorKind,
  type OpenTelemetryConfig,
} from "../monitor-config";
import { fieldsOfMask } from "./update-mask";
import {
  httpMethodCodec,
  jsonComparatorCodec,
  monitorStatusCodec,
  numberComparatorCodec,
  periodicityCodec,
  recordComparatorCodec,
  regionCodec,
  stringComparatorCodec,
} from "./enums";

export interface MonitorMessageByKind {
  http: HTTPMonitor;
  tcp: TCPMonitor;
  dns: DNSMonitor;
  grpc: GRPCMonitor;
}

/** A stored monitor: its configuration plus what the service keeps about it. */
export interface MonitorRecord<K extends MonitorKind = MonitorKind> {
  id: string;
  kind: K;
  config: MonitorConfigByKind[K];
  /** The caller's own identifier (docs/api.md "External ids"), kept beside the configuration: agents never see it. */
  externalId: string | null;
  status: MonitorStatus;
  createdAt: Date;
  updatedAt: Date;
}

/** Each kind's API message type. */
export const MONITOR_MESSAGE_SCHEMAS: { [K in MonitorKind]: DescMessage } = {
  http: HTTPMonitorSchema,
  tcp: TCPMonitorSchema,
  dns: DNSMonitorSchema,
  grpc: GRPCMonitorSchema,
};

const int = (value: bigint | undefined) => (value === undefined ? undefined : Number(value));
const headersIn = (headers: HeaderMessage[]) => headers.map(({ key, value }) => ({ key, value }));
const openTelemetryIn = (config: OpenTelemetryMessage | undefined) =>
  config && { endpoint: config.endpoint, headers: headersIn(config.headers) };

/** The configuration fields of a monitor message, decoded; absent ones are undefined. */
export function monitorInputFromMessage<K extends MonitorKind>(kind: K, message: MonitorMessageByKind[K]): MonitorInput {
  const common = {
    name: message.name,
    periodicity: periodicityCodec.decode(message.periodicity),
    timeout: int(message.timeout),
    retry: int(message.retry),
    degradedAt: int(message.degradedAt),
    regions: message.regions.map(regionCodec.decode),
    active: message.active,
    public: message.public,
    description: message.description,
    openTelemetry: openTelemetryIn(message.openTelemetry),
    alertQuorum: message.alertQuorum,
    confirmations: int(message.confirmations),
    recoveryConfirmations: int(message.recoveryConfirmations),
    dependsOn: message.dependsOn,
    availabilityObjective: message.availabilityObjective,
    latencyObjectiveMs: int(message.latencyObjectiveMs),
    latencyObjectivePercent: message.latencyObjectivePercent,
  };
  if (kind === "tcp") return { ...common, uri: (message as TCPMonitor).uri };
  if (kind === "grpc") {
    const grpc = message as GRPCMonitor;
    return {
      ...common,
      uri: grpc.uri,
      service: grpc.service,
      tls: grpc.tls,
      headers: headersIn(grpc.headers),
      certificateExpiryDays: int(grpc.certificateExpiryDays),
      expectedStatus: grpc.expectedStatus,
    };
  }
  if (kind === "dns") {
    const dns = message as DNSMonitor;
    return {
      ...common,
      uri: dns.uri,
      recordAssertions: dns.recordAssertions.map((a) => ({
        record: a.record,
        target: a.target,
        comparator: recordComparatorCodec.decode(a.comparator),
      })),
    };
  }
  const http = message as HTTPMonitor;
  return {
    ...common,
    url: http.url,
    method: httpMethodCodec.decode(http.method),
    body: http.body,
    headers: headersIn(http.headers),
    followRedirects: http.followRedirects,
    traceHeader: http.traceHeader,
    certificateExpiryDays: int(http.certificateExpiryDays),
    statusCodeAssertions: http.statusCodeAssertions.map((a) => ({
      target: Number(a.target),
      comparator: numberComparatorCodec.decode(a.comparator),
    })),
    bodyAssertions: http.bodyAssertions.map((a) => ({ target: a.target, comparator: stringComparatorCodec.decode(a.comparator) })),
    headerAssertions: http.headerAssertions.map((a) => ({
      key: a.key,
      target: a.target,
      comparator: stringComparatorCodec.decode(a.comparator),
    })),
    jsonBodyAssertions: http.jsonBodyAssertions.map((a) => ({
      path: a.path,
      comparator: jsonComparatorCodec.decode(a.comparator),
      target: a.target,
    })),
  };
}

/** What an update changes: configuration fields (MONITOR_FIELDS), and the external id when it is among them. */
export interface MonitorChanges {
  config: string[];
  /** The new external id, unvalidated ("" or absent under a mask clears it); undefined when it does not change. */
  externalId: string | undefined;
}

/**
 * The fields an update changes. With an update mask, exactly the fields it
 * names (proto or JSON spelling), a named external_id that is not sent being
 * cleared; without one, the fields the message carries: scalars that are
 * present, enums other than UNSPECIFIED, non-empty lists and a set openTelemetry.
 */
export function fieldsToUpdate<K extends MonitorKind>(kind: K, message: MonitorMessageByKind[K], mask: FieldMask | undefined): MonitorChanges {
  return changedFields(MONITOR_MESSAGE_SCHEMAS[kind], MONITOR_FIELDS[kind] as readonly string[], kind.toUpperCase(), message, mask);
}

/** fieldsToUpdate of a monitor message of any kind: `configFields` are those of its configuration, `label` names the kind. */
export function changedFields(
  schema: DescMessage,
  configFields: readonly string[],
  label: string,
  message: { externalId?: string },
  mask: FieldMask | undefined,
): MonitorChanges {
  const allowed = new Set<string>([...configFields, "externalId"]);
  const fields = schema.fields.filter((field) => allowed.has(field.localName));
  const record = message as unknown as Record<string, unknown>;
  let names: string[];
  if (mask && mask.paths.length > 0) {
    names = fieldsOfMask(fields, mask, `a field of a ${label} monitor that can be updated`).map((field) => field.localName);
  } else {
    names = fields
      .filter((field) => {
        const value = record[field.localName];
        if (field.fieldKind === "list") return (value as unknown[]).length > 0;
        if (field.fieldKind === "enum") return value !== 0;
        return value !== undefined;
      })
      .map((field) => field.localName);
  }
  return {
    config: names.filter((name) => name !== "externalId"),
    externalId: names.includes("externalId") ? (message.externalId ?? "") : undefined,
  };
}

/**
 * Every field of a message, none left out. The API's monitor messages are written as object literals (proto3
 * messages are plain objects in protobuf-es): `create()` walks the schema for every field it is given, which made
 * it most of a ListMonitors call (about 14 µs a monitor against 0.5). Set in full, a literal is what `create()`
 * would return, and this type makes the compiler check that each field is there.
 */
export type EveryField<T> = T & { [K in Exclude<keyof T, "$unknown">]-?: T[K] | undefined };

export const timestampOf = (date: Date): EveryField<Timestamp> => {
  const ms = date.getTime();
  return { $typeName: "google.protobuf.Timestamp", seconds: BigInt(Math.floor(ms / 1000)), nanos: (((ms % 1000) + 1000) % 1000) * 1_000_000 };
};
const headersOut = (headers: Header[]): EveryField<HeaderMessage>[] =>
  headers.map(({ key, value }) => ({ $typeName: "monitor.v1.Header", key, value }));
const openTelemetryOut = (config: OpenTelemetryConfig | null): EveryField<OpenTelemetryMessage> | undefined =>
  config ? { $typeName: "monitor.v1.OpenTelemetryConfig", endpoint: config.endpoint, headers: headersOut(config.headers) } : undefined;

/** The API message of a stored monitor, every field set. */
export function monitorToMessage<K extends MonitorKind>(record: MonitorRecord<K>): MonitorMessageByKind[K] {
  const config: MonitorConfigByKind[MonitorKind] = record.config;
  const common = {
    id: record.id,
    name: config.name,
    periodicity: periodicityCodec.encode(config.periodicity),
    timeout: BigInt(config.timeout),
    retry: BigInt(config.retry),
    degradedAt: BigInt(config.degradedAt),
    regions: config.regions.map(regionCodec.encode),
    active: config.active,
    public: config.public,
    description: config.description,
    openTelemetry: openTelemetryOut(config.openTelemetry),
    alertQuorum: config.alertQuorum,
    confirmations: BigInt(config.confirmations),
    recoveryConfirmations: BigInt(config.recoveryConfirmations),
    dependsOn: [...config.dependsOn],
    availabilityObjective: config.availabilityObjective,
    latencyObjectiveMs: BigInt(config.latencyObjectiveMs),
    latencyObjectivePercent: config.latencyObjectivePercent,
    externalId: record.externalId ?? "",
    status: monitorStatusCodec.encode(record.status),
    createdAt: timestampOf(record.createdAt),
    updatedAt: timestampOf(record.updatedAt),
  };
  if (record.kind === "dns") {
    const dns = config as MonitorConfigByKind["dns"];
    const message: EveryField<DNSMonitor> = {
      $typeName: "monitor.v1.DNSMonitor",
      ...common,
      uri: dns.uri,
      recordAssertions: dns.recordAssertions.map(({ record: type, target, comparator }) => ({
        $typeName: "monitor.v1.RecordAssertion",
        record: type,
        target,
        comparator: recordComparatorCodec.encode(comparator),
      })),
    };
    return message as MonitorMessageByKind[K];
  }
  if (record.kind === "grpc") {
    const grpc = config as MonitorConfigByKind["grpc"];
    const message: EveryField<GRPCMonitor> = {
      $typeName: "monitor.v1.GRPCMonitor",
      ...common,
      uri: grpc.uri,
      service: grpc.service,
      tls: grpc.tls,
      headers: headersOut(grpc.headers),
      certificateExpiryDays: BigInt(grpc.certificateExpiryDays),
      expectedStatus: grpc.expectedStatus,
    };
    return message as MonitorMessageByKind[K];
  }
  if (record.kind === "tcp") {
    const message: EveryField<TCPMonitor> = { $typeName: "monitor.v1.TCPMonitor", ...common, uri: (config as MonitorConfigByKind["tcp"]).uri };
    return message as MonitorMessageByKind[K];
  }
  const http = config as MonitorConfigByKind["http"];
  const message: EveryField<HTTPMonitor> = {
    $typeName: "monitor.v1.HTTPMonitor",
    ...common,
    url: http.url,
    method: httpMethodCodec.encode(http.method),
    body: http.body,
    headers: headersOut(http.headers),
    followRedirects: http.followRedirects,
    traceHeader: http.traceHeader,
    certificateExpiryDays: BigInt(http.certificateExpiryDays),
    statusCodeAssertions: http.statusCodeAssertions.map(({ target, comparator }) => ({
      $typeName: "monitor.v1.StatusCodeAssertion",
      target: BigInt(target),
      comparator: numberComparatorCodec.encode(comparator),
    })),
    bodyAssertions: http.bodyAssertions.map(({ target, comparator }) => ({
      $typeName: "monitor.v1.BodyAssertion",
      target,
      comparator: stringComparatorCodec.encode(comparator),
    })),
    headerAssertions: http.headerAssertions.map(({ key, target, comparator }) => ({
      $typeName: "monitor.v1.HeaderAssertion",
      key,
      target,
      comparator: stringComparatorCodec.encode(comparator),
    })),
    jsonBodyAssertions: http.jsonBodyAssertions.map(({ path, comparator, target }) => ({
      $typeName: "monitor.v1.JsonBodyAssertion",
      path,
      comparator: jsonComparatorCodec.encode(comparator),
      target,
    })),
  };
  return message as MonitorMessageByKind[K];
}

/**
 * The request message of a configuration a client wants (a create, or an
 * update with a mask): every configured field set, none of the read-only ones.
 */
export function monitorConfigToMessage<K extends MonitorKind>(kind: K, config: MonitorConfigByKind[K], externalId?: string): MonitorMessageByKind[K] {
  const message = monitorToMessage<K>({ id: "", kind, config, status: "unknown", externalId: null, createdAt: new Date(0), updatedAt: new Date(0) });
  return Object.assign(message, { status: 0, createdAt: undefined, updatedAt: undefined, externalId });
}
