import type { PrismaClient } from "./generated/prisma/client";

/**
 * The channel on which every committed change to a monitor row is announced (migration
 * monitor_change_notices): "<I|U|D> <workspace id> <monitor id>", or an empty payload when every monitor
 * changed (TRUNCATE).
 */
export const MONITOR_CHANGES_CHANNEL = "monitor_changes";

/** One changed monitor; `membership`: it was added to its workspace or removed from it, not updated. */
export interface MonitorChange {
  monitorId: string;
  workspaceId: string;
  membership: boolean;
}

/** A notification's payload as a change, or null for "every monitor". */
export function parseMonitorChange(payload: string): MonitorChange | null {
  if (payload === "") return null;
  const [operation, workspaceId, monitorId] = payload.split(" ");
  return { monitorId: monitorId!, workspaceId: workspaceId!, membership: operation !== "U" };
}

/**
 * Changed monitors, as the database announces them (migration monitor_change_notices). Embedded PGlite is one
 * session serving this process alone, so it tells each change before the answer of any statement that follows
 * it. A PostgreSQL server has writers this process hears of a moment later (other control planes), so a reader
 * asks `caughtUp()` first (server-monitor-changes.ts).
 */
export interface MonitorChanges {
  /** `listener` gets each change, or null when every monitor may have changed. */
  subscribe(listener: (change: MonitorChange | null) => void): void;
  /**
   * True once every change committed before the call has been told to the listeners; false when that cannot be
   * known now (the feed is reconnecting), and the reader must ask the database.
   */
  caughtUp(): Promise<boolean>;
}

const byClient = new WeakMap<PrismaClient, MonitorChanges>();

export function registerMonitorChanges(prisma: PrismaClient, changes: MonitorChanges): void {
  byClient.set(prisma, changes);
}

/** The database's feed of changed monitors, or null where it has none (a client openDatabase did not make). */
export function monitorChanges(prisma: PrismaClient): MonitorChanges | null {
  return byClient.get(prisma) ?? null;
}
