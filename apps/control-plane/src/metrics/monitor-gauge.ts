import pTimeout from "p-timeout";
import type { PrismaClient } from "@vigil/db";
import { MONITOR_STATUSES, STORED_MONITOR_KINDS } from "@vigil/domain";
import { monitorsByStatus } from "./definitions";

/** A scrape does not wait on a slow database longer than on a slow Redis. */
const DATABASE_READ_TIMEOUT_MS = 2_000;

/**
 * Sets vigil_monitors from one count of the monitors table by kind and status. While the database does not answer
 * in time the gauge keeps its last values (the scrape still answers; /healthz tells the database's state).
 */
export async function updateMonitorGauge(prisma: PrismaClient): Promise<void> {
  const read = prisma.$queryRaw<{ kind: string; status: string; count: bigint | number }[]>`
    SELECT kind::text AS kind, status, count(*) AS count FROM monitors GROUP BY kind, status`;
  try {
    const rows = await pTimeout(read, { milliseconds: DATABASE_READ_TIMEOUT_MS });
    // A pair no monitor has any more counts 0, not its last value.
    for (const kind of STORED_MONITOR_KINDS) for (const status of MONITOR_STATUSES) monitorsByStatus.set({ kind, status }, 0);
    for (const row of rows) monitorsByStatus.set({ kind: row.kind, status: row.status }, Number(row.count));
  } catch {
    // The gauge keeps its last values; a read that fails after the timeout is observed by p-timeout.
  }
}
