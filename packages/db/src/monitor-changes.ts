import type { PrismaClient } from "./generated/prisma/client";

/**
 * The channel on which every committed change to a monitor row is announced (migration
 * monitor_change_notices): the monitor's id, or an empty payload when every monitor changed (TRUNCATE).
 */
export const MONITOR_CHANGES_CHANNEL = "monitor_changes";

/**
 * Changed monitors, told to this process before the answer of any statement that follows the change. Only the
 * embedded database offers it: PGlite is one session serving this process alone, so it hears every change at
 * once. A PostgreSQL server has writers this process hears of only later (other control planes), so there its
 * readers ask a row's version instead.
 */
export interface MonitorChanges {
  /** `listener` gets the changed monitor's id, or null when every monitor may have changed. */
  subscribe(listener: (monitorId: string | null) => void): void;
}

const byClient = new WeakMap<PrismaClient, MonitorChanges>();

export function registerMonitorChanges(prisma: PrismaClient, changes: MonitorChanges): void {
  byClient.set(prisma, changes);
}

/** The database's feed of changed monitors, or null where it has none (PostgreSQL, or a client openDatabase did not make). */
export function monitorChanges(prisma: PrismaClient): MonitorChanges | null {
  return byClient.get(prisma) ?? null;
}
