import type { FieldMask } from "@bufbuild/protobuf/wkt";
import { HeartbeatMonitorSchema, type HeartbeatMonitor } from "@vigil/proto";
import type { MonitorStatus } from "../comparators";
import { HEARTBEAT_FIELDS, type HeartbeatMonitorConfig } from "../heartbeat";
import { changedFields, timestampOf, type EveryField, type MonitorChanges, type MonitorRecord } from "./monitor-messages";
import { monitorStatusCodec } from "./enums";

/** A stored heartbeat monitor: its configuration plus what the service keeps about it. */
export interface HeartbeatRecord {
  id: string;
  kind: "heartbeat";
  config: HeartbeatMonitorConfig;
  externalId: string | null;
  /** The secret of its ping URL. */
  pingToken: string;
  status: MonitorStatus;
  createdAt: Date;
  updatedAt: Date;
}

/** A stored monitor of any kind: one that agents check, or a heartbeat. */
export type StoredMonitor = MonitorRecord | HeartbeatRecord;
export type StoredMonitorKind = StoredMonitor["kind"];
/** Every kind of monitor the service stores, in the order the API lists them. */
/** Each kind's name as people read it (messages, the console, the CLI's help); a new kind missing here fails the typecheck. */
export const MONITOR_KIND_NAMES: Record<StoredMonitorKind, string> = { http: "HTTP", tcp: "TCP", dns: "DNS", grpc: "gRPC", heartbeat: "Heartbeat" };
export const STORED_MONITOR_KINDS = Object.keys(MONITOR_KIND_NAMES) as readonly StoredMonitorKind[];

const int = (value: bigint | undefined) => (value === undefined ? undefined : Number(value));

/** The configuration fields of a heartbeat monitor message; absent ones are undefined. */
export function heartbeatInputFromMessage(message: HeartbeatMonitor): Record<string, unknown> {
  return {
    name: message.name,
    periodSeconds: int(message.periodSeconds),
    cron: message.cron,
    timezone: message.timezone,
    graceSeconds: int(message.graceSeconds),
    description: message.description,
    active: message.active,
    public: message.public,
    dependsOn: message.dependsOn,
  };
}

/** What an update of a heartbeat monitor changes; see fieldsToUpdate. */
export function heartbeatFieldsToUpdate(message: HeartbeatMonitor, mask: FieldMask | undefined): MonitorChanges {
  return changedFields(HeartbeatMonitorSchema, HEARTBEAT_FIELDS, "heartbeat", message, mask);
}

/** The API message of a stored heartbeat monitor, every field set; `pingUrl` is "" for those who may not see it. */
export function heartbeatToMessage(record: HeartbeatRecord, pingUrl: string): HeartbeatMonitor {
  const { config } = record;
  const message: EveryField<HeartbeatMonitor> = {
    $typeName: "monitor.v1.HeartbeatMonitor",
    id: record.id,
    name: config.name,
    periodSeconds: config.periodSeconds === null ? undefined : BigInt(config.periodSeconds),
    cron: config.cron,
    timezone: config.timezone,
    graceSeconds: BigInt(config.graceSeconds),
    description: config.description,
    active: config.active,
    public: config.public,
    dependsOn: [...config.dependsOn],
    pingUrl,
    status: monitorStatusCodec.encode(record.status),
    createdAt: timestampOf(record.createdAt),
    updatedAt: timestampOf(record.updatedAt),
    externalId: record.externalId ?? "",
  };
  return message;
}

/** The request message of a heartbeat configuration a client wants (a create, or an update with a mask). */
export function heartbeatConfigToMessage(config: HeartbeatMonitorConfig, externalId?: string): HeartbeatMonitor {
  const message = heartbeatToMessage(
    { id: "", kind: "heartbeat", config, externalId: null, pingToken: "", status: "unknown", createdAt: new Date(0), updatedAt: new Date(0) },
    "",
  );
  return Object.assign(message, { status: 0, createdAt: undefined, updatedAt: undefined, externalId });
}
