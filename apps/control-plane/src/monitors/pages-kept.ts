import { monitorChanges, type MonitorChanges, type PrismaClient } from "@vigil/db";
import { onePerDatabase } from "./per-database";

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
 * kept records (records-by-version.ts) drop. A page read while no such change was heard is kept.
 */
export class PagesKept {
  private readonly pages = new Map<string, KeptPage & { workspaceId: string }>();
  /** Added or removed monitors heard so far; a read that started at this count and ends at it missed none. */
  private heard = 0;

  constructor(private readonly changes: MonitorChanges | null) {
    changes?.subscribe((change) => {
      if (change && !change.membership) return;
      this.heard++;
      if (change === null) this.pages.clear();
      else for (const [key, page] of this.pages) if (page.workspaceId === change.workspaceId) this.pages.delete(key);
    });
  }

  /** Taken before the page's statement, and handed to `keep` with its answer. */
  readStarted(): number {
    return this.heard;
  }

  get(workspaceId: string, limit: number, offset: number): KeptPage | undefined {
    return this.pages.get(pageKey(workspaceId, limit, offset));
  }

  keep(workspaceId: string, limit: number, offset: number, page: KeptPage, readStarted: number): void {
    if (this.changes === null || this.heard !== readStarted) return;
    const key = pageKey(workspaceId, limit, offset);
    this.pages.delete(key);
    this.pages.set(key, { ...page, workspaceId });
    if (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value!);
  }
}

const pageKey = (workspaceId: string, limit: number, offset: number) => `${workspaceId} ${limit} ${offset}`;

const byDatabase = new WeakMap<PrismaClient, PagesKept>();

/** The pages kept for this database, one set per process. */
export const keptPages = (prisma: PrismaClient): PagesKept => onePerDatabase(byDatabase, prisma, () => new PagesKept(monitorChanges(prisma)));
