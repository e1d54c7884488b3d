import type { MonitorRecord } from "@vigil/domain";

/** Monitors kept in memory at most; past it the oldest kept go first. */
const MAX_RECORDS = 20_000;

/**
 * Monitor records kept by row version (PostgreSQL's `xmin`, which every
 * UPDATE of the row changes, whoever makes it: this control plane, another
 * one, or the status writer's plain SQL). A page of ListMonitors then reads
 * only ids and versions, and full rows only for monitors changed since they
 * were last read, instead of parsing and mapping a hundred rows per call;
 * reading one monitor (GetMonitor and every call about one monitor) reads its
 * columns only when it changed.
 * The records are shared between calls, and nothing changes a record in place.
 */
export class RecordsByVersion {
  private readonly records = new Map<string, { version: string; record: MonitorRecord }>();

  /** The record last kept for the monitor, with the version it was read at. */
  latest(id: string): { version: string; record: MonitorRecord } | undefined {
    return this.records.get(id);
  }

  get(id: string, version: string): MonitorRecord | undefined {
    const kept = this.records.get(id);
    return kept?.version === version ? kept.record : undefined;
  }

  keep(version: string, record: MonitorRecord): void {
    this.records.delete(record.id);
    this.records.set(record.id, { version, record });
    if (this.records.size > MAX_RECORDS) this.records.delete(this.records.keys().next().value!);
  }
}
