import { LRUCache } from "lru-cache";
import { monitorChanges, type MonitorChanges, type PrismaClient } from "@vigil/db";
import { onePerDatabase } from "./per-database";
import { keptRecords, type RecordsByVersion } from "./records-by-version";

/** Pages kept at most, of every workspace; past it the least recently used go first. */
const MAX_PAGES = 1_000;

/** A page of ListMonitors as its statement read it: the monitors' ids in order, and the workspace's total. */
export interface KeptPage {
  ids: string[];
  total: number;
}

/**
 * ListMonitors pages kept where the database announces every change to a monitor (`MonitorChanges`). A page's
 * ids and its workspace's total change only when a monitor is added to that workspace or removed from it, which
 * drops the workspace's pages; an update changes only that monitor's record, which the kept records
 * (records-by-version.ts) drop. A page is kept when its read missed no change, as the records tell, and is
 * trusted once the records are caught up with the database.
 */
export class PagesKept {
  private readonly pages = new LRUCache<string, KeptPage & { workspaceId: string }>({
    max: MAX_PAGES,
    // However a page goes (dropped, replaced, or let go past MAX_PAGES), its workspace's keys lose it.
    dispose: ({ workspaceId }, key) => {
      const keys = this.byWorkspace.get(workspaceId);
      keys?.delete(key);
      if (keys?.size === 0) this.byWorkspace.delete(workspaceId);
    },
  });
  /** The keys of each workspace's kept pages: a bulk insert announces one change per monitor. */
  private readonly byWorkspace = new Map<string, Set<string>>();

  constructor(
    changes: MonitorChanges | null,
    private readonly records: RecordsByVersion,
  ) {
    changes?.subscribe((change) => {
      if (change && !change.membership) return;
      if (change === null) this.pages.clear();
      else for (const key of this.byWorkspace.get(change.workspaceId) ?? []) this.pages.delete(key);
    });
  }

  get(workspaceId: string, limit: number, offset: number): KeptPage | undefined {
    return this.pages.get(pageKey(workspaceId, limit, offset));
  }

  /** `readStarted`: the records' count, taken before the page's statement. */
  keep(workspaceId: string, limit: number, offset: number, page: KeptPage, readStarted: number): void {
    if (!this.records.missedNothingSince(readStarted)) return;
    const key = pageKey(workspaceId, limit, offset);
    this.pages.set(key, { ...page, workspaceId });
    let keys = this.byWorkspace.get(workspaceId);
    if (!keys) this.byWorkspace.set(workspaceId, (keys = new Set()));
    keys.add(key);
  }
}

const pageKey = (workspaceId: string, limit: number, offset: number) => `${workspaceId} ${limit} ${offset}`;

const byDatabase = new WeakMap<PrismaClient, PagesKept>();

/** The pages kept for this database, one set per process. */
export const keptPages = (prisma: PrismaClient): PagesKept => onePerDatabase(byDatabase, prisma, () => new PagesKept(monitorChanges(prisma), keptRecords(prisma)));
