import { LRUCache } from "lru-cache";
import { monitorChanges, type MonitorChanges, type PrismaClient } from "@vigil/db";
import type { MonitorRecord } from "@vigil/domain";
import { onePerDatabase } from "./per-database";

/** Monitors kept in memory at most; past it the least recently used go first. */
export const MAX_KEPT_RECORDS = 20_000;

interface Kept {
  version: string;
  record: MonitorRecord;
  workspaceId: string;
  /** Known unchanged without asking the database: no change to it can have been missed since it was read. */
  current: boolean;
}

/**
 * Monitor records kept by row version (PostgreSQL's `xmin`, which every
 * UPDATE of the row changes, whoever makes it: this control plane, another
 * one, or the status writer's plain SQL). A page of ListMonitors then reads
 * only ids and versions, and full rows only for monitors changed since they
 * were last read, instead of parsing and mapping a hundred rows per call;
 * reading one monitor (GetMonitor and every call about one monitor) reads its
 * columns only when it changed.
 *
 * The database tells this process of every changed monitor
 * (`MonitorChanges`): a record is dropped when its monitor changes, and one
 * read while no change was heard is current. Once the feed is caught up with
 * the database (`caughtUp`: at once on embedded PGlite, after a fence on a
 * server), a current record is the monitor as it is, and reading it asks the
 * database nothing more. The records are shared between calls, and nothing
 * changes a record in place.
 */
export class RecordsByVersion {
  private readonly records = new LRUCache<string, Kept>({ max: MAX_KEPT_RECORDS });
  /** Changes heard so far; a read that started at this count and ends at it missed none. */
  private heard = 0;

  constructor(private readonly changes: MonitorChanges | null) {
    changes?.subscribe((change) => {
      this.heard++;
      if (change === null) {
        // Anything may have changed (the feed connected, or is back after a loss): each record is kept to be
        // confirmed by its row's version, one small read, rather than read again in full.
        for (const kept of this.records.values()) kept.current = false;
      } else this.records.delete(change.monitorId);
    });
  }

  /** Taken before a statement whose answer will be kept, and handed to `keep` or `confirm` with it. */
  readStarted(): number {
    return this.heard;
  }

  /**
   * Resolves true once every change committed before the call has been heard, so that `current` records and the
   * pages kept with them are the monitors as they are; false where that is not known now.
   */
  caughtUp(): Promise<boolean> {
    return this.changes?.caughtUp() ?? Promise.resolve(false);
  }

  /** The record of a monitor known unchanged since it was read: the monitor as it is, after `caughtUp`. */
  current(id: string): { record: MonitorRecord; workspaceId: string } | undefined {
    const kept = this.records.get(id);
    return kept?.current ? kept : undefined;
  }

  /** The record last kept for the monitor, with the version it was read at. */
  latest(id: string): { version: string; record: MonitorRecord } | undefined {
    return this.records.get(id);
  }

  get(id: string, version: string): MonitorRecord | undefined {
    const kept = this.records.get(id);
    return kept?.version === version ? kept.record : undefined;
  }

  keep(version: string, record: MonitorRecord, workspaceId: string, readStarted: number): void {
    this.records.set(record.id, { version, record, workspaceId, current: this.missedNothingSince(readStarted) });
  }

  /** The database answered, for a read started at `readStarted`, that the monitor is still at `version`. */
  confirm(id: string, version: string, readStarted: number): void {
    const kept = this.records.get(id);
    if (kept?.version === version && this.missedNothingSince(readStarted)) kept.current = true;
  }

  /** Whether a read started at `readStarted` can have missed no change: only where changes are announced. */
  missedNothingSince(readStarted: number): boolean {
    return this.changes !== null && this.heard === readStarted;
  }
}

const byDatabase = new WeakMap<PrismaClient, RecordsByVersion>();

/**
 * The records kept for this database, one set per process: the API's reads share them with the scheduler's
 * reconciliation, which reads every active monitor when the process starts and then periodically, so a running
 * control plane has read the monitors it is asked about.
 */
export const keptRecords = (prisma: PrismaClient): RecordsByVersion => onePerDatabase(byDatabase, prisma, () => new RecordsByVersion(monitorChanges(prisma)));
