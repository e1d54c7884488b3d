import { LRUCache } from "lru-cache";
import {
  heartbeatToMessage,
  monitorToMessage,
  pingUrlOf,
  redactCredentials,
  type HeartbeatRecord,
  type MonitorKind,
  type MonitorMessageByKind,
  type MonitorRecord,
  type StoredMonitor,
} from "@vigil/domain";
import type { HeartbeatMonitor } from "@vigil/proto";
import type { MonitorRepository, MonitorVersion } from "./repository";

/** The API message of a monitor; read keys see its credentials as fingerprints (credentials.ts in @vigil/domain). */
export const monitorMessage = <K extends MonitorKind>(record: MonitorRecord<K>, readKey: boolean): MonitorMessageByKind[K] =>
  monitorToMessage(readKey ? { ...record, config: redactCredentials(record.config, record.id) } : record);

/** A heartbeat's message: read keys see no ping URL, the secret that lets anyone report runs of its job. */
export const heartbeatMessage = (record: HeartbeatRecord, readKey: boolean, publicUrl: string): HeartbeatMonitor =>
  heartbeatToMessage(record, readKey ? "" : pingUrlOf(publicUrl, record.pingToken));

/** A monitor's message as the API answers it, kind by kind. */
export type KindAndMessage =
  | { [K in MonitorKind]: { kind: K; message: MonitorMessageByKind[K] } }[MonitorKind]
  | { kind: "heartbeat"; message: HeartbeatMonitor };

/** The message of a stored monitor of any kind, with its kind. */
export const kindAndMessage = (record: StoredMonitor, readKey: boolean, publicUrl: string): KindAndMessage =>
  record.kind === "heartbeat"
    ? { kind: "heartbeat", message: heartbeatMessage(record, readKey, publicUrl) }
    : ({ kind: record.kind, message: monitorMessage(record, readKey) } as KindAndMessage);

interface Kept {
  version: string;
  record: StoredMonitor;
  messages: { full?: KindAndMessage; redacted?: KindAndMessage };
}

/** The most monitors kept, least recently read first out: a hundred pages of the largest size, up to about 30 MiB. */
const KEPT_MONITORS = 10_000;

/**
 * The messages of ListMonitors' pages, kept by the row version of each monitor (PostgreSQL's `xmin`, which every
 * write to a row renews: the API's, the status writer's, another control plane's, a hand-made UPDATE). A page asks
 * the database for its monitors' ids and versions, and reads in full only those whose kept version differs. Making
 * the messages of a hundred monitors (parsing their rows, redacting a read key's credentials) was half of a call's
 * server time (docs/benchmarks.md, bench:api). This is the only place monitors are kept; nothing else invalidates it.
 */
export class MonitorMessages {
  private readonly kept = new LRUCache<string, Kept>({ max: KEPT_MONITORS });

  constructor(
    private readonly repo: MonitorRepository,
    /** The deployment's PUBLIC_URL, under which heartbeats' ping URLs are. */
    private readonly publicUrl: string,
  ) {}

  /** One page in creation order (then id), and the workspace's total. */
  async page(workspaceId: string, limit: number, offset: number, readKey: boolean): Promise<{ monitors: KindAndMessage[]; total: number }> {
    const { versions, total } = await this.repo.listVersions(workspaceId, limit, offset);
    return { monitors: await this.messagesOf(workspaceId, versions, readKey), total };
  }

  /** The messages of the monitors listed with their versions, in that order (those deleted since they were listed left out). */
  async messagesOf(workspaceId: string, versions: readonly MonitorVersion[], readKey: boolean): Promise<KindAndMessage[]> {
    // Taken before the read below: other calls may evict entries while it is awaited.
    const held = versions.map(({ id, version }) => {
      const kept = this.kept.get(id);
      return kept?.version === version ? kept : undefined;
    });
    const missing = versions.filter((_, i) => held[i] === undefined).map(({ id }) => id);
    const read = missing.length === 0 ? [] : await this.repo.findVersioned(workspaceId, missing);
    const found = new Map(read.map((entry) => [entry.record.id, entry]));
    const monitors: KindAndMessage[] = [];
    versions.forEach(({ id }, i) => {
      let kept = held[i];
      if (kept === undefined) {
        // Read again: the version the page listed or a later one; not found, deleted since the page was listed.
        const entry = found.get(id);
        if (entry === undefined) return;
        kept = { ...entry, messages: {} };
        this.kept.set(id, kept);
      }
      const variant = readKey ? "redacted" : "full";
      monitors.push((kept.messages[variant] ??= kindAndMessage(kept.record, readKey, this.publicUrl)));
    });
    return monitors;
  }
}
