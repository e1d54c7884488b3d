import {
  HEARTBEAT_FIELDS,
  MONITOR_FIELDS,
  STORED_MONITOR_KINDS,
  heartbeatConfigToMessage,
  monitorConfigToMessage,
  parseHeartbeatConfig,
  parseMonitorConfig,
  type HeartbeatMonitorConfig,
  type MonitorConfig,
  type MonitorInput,
  type StoredMonitorKind,
} from "@vigil/domain";

/**
 * The monitor types a file can hold: the kinds agents check, and heartbeats, whose configuration is its own
 * (a schedule, no target) and whose ping URL is a secret the server makes, so never part of a file.
 */
export type EntryKind = StoredMonitorKind;
export type EntryConfig = MonitorConfig | HeartbeatMonitorConfig;

export const ENTRY_KINDS: readonly EntryKind[] = STORED_MONITOR_KINDS;

/** A whole configuration of an entry's type with every default filled in (the API's rules). */
export function parseEntryConfig(kind: EntryKind, input: MonitorInput): EntryConfig {
  return kind === "heartbeat" ? parseHeartbeatConfig(input) : parseMonitorConfig(kind, input);
}

/** The configuration fields of a type, as the API spells them (and an update mask names them). */
export function entryFields(kind: EntryKind): readonly string[] {
  return kind === "heartbeat" ? HEARTBEAT_FIELDS : (MONITOR_FIELDS[kind] as readonly string[]);
}

/** The request message of a configuration, for a create or a masked update. */
export function entryMessage(kind: EntryKind, config: EntryConfig, externalId?: string): unknown {
  return kind === "heartbeat" ? heartbeatConfigToMessage(config as HeartbeatMonitorConfig, externalId) : monitorConfigToMessage(kind, config as never, externalId);
}
