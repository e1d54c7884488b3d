import { monitorChanges, type MonitorChanges, type PrismaClient } from "@vigil/db";
import { onePerDatabase } from "./per-database";
import { keptRecords, type RecordsByVersion } from "./records-by-version";

/** Pages kept at most, of every workspace; past it the oldest kept go first. */
const MAX_PAGES = 1_000;

/** A page of ListMonitors as its statement read it: the monitors' ids in order, and the workspace's total. */
export interface KeptPage {
  ids: string[];
  total: number;
}

/**
 * ListMonitors pages kept where the database announces every change to a monitor (`MonitorChanges`: embedded
 * PGlite). A page's ids and its workspace's total change only when a monitor is added to that workspace or
 * removed from it, which drops the workspace's pages; an update changes only that monitor's record, which the
 * kept records (records-by-version.ts) drop. A page is kept when its read missed no change, as the records tell.
 */
export class PagesKept {
  private readonly pages = new Map<string, KeptPage & { workspaceId: string }>();

  constructor(
    changes: MonitorChanges | null,
    private readonly records: RecordsByVersion,
  ) {
    changes?.subscribe((change) => {
      if (change && !change.membership) return;
      if (change === null) this.pages.clear();
      else for (const [key, page] of this.pages) if (page.workspaceId === change.workspaceId) this.pages.delete(key);
    });
  }

  get(workspaceId: string, limit: number, offset: number): KeptPage | undefined {
    return this.pages.get(pageKey(workspaceId, limit, offset));
  }

  /** `readStarted`: the records' count, taken before the page's statement. */
  keep(workspaceId: string, limit: number, offset: number, page: KeptPage, readStarted: number): void {
    if (!this.records.missedNothingSince(readStarted)) return;
    const key = pageKey(workspaceId, limit, offset);
    this.pages.delete(key);
    this.pages.set(key, { ...page, workspaceId });
    if (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value!);
  }
}

const pageKey = (workspaceId: string, limit: number, offset: number) => `${workspaceId} ${limit} ${offset}`;

const byDatabase = new WeakMap<PrismaClient, PagesKept>();

/** The pages kept for this database, one set per process. */
export const keptPages = (prisma: PrismaClient): PagesKept => onePerDatabase(byDatabase, prisma, () => new PagesKept(monitorChanges(prisma), keptRecords(prisma)));
