import type { PrismaClient } from "@vigil/db";
import type { TimeRange } from "@vigil/domain";
import { PERCENTILES, rangeStart, type Summary } from "../results/summary";

/**
 * GetMonitorSummary of a heartbeat, from its kept pings (the newest PINGS_KEPT) within the range: the
 * newest ping, successes and failures counted (starts are neither), and the percentiles of the runs'
 * durations (a success or failure after a start); 0 when no run was measured.
 */
export async function heartbeatSummary(prisma: PrismaClient, monitorId: string, range: TimeRange, now = new Date()): Promise<Summary> {
  const [row] = await prisma.$queryRaw<{ last: Date | null; successful: bigint; failed: bigint; durations: number[] | null }[]>`
    SELECT max(received_at) AS last,
      count(*) FILTER (WHERE kind = 'success') AS successful,
      count(*) FILTER (WHERE kind = 'fail') AS failed,
      percentile_disc(${PERCENTILES.map((p) => p / 100)}::float8[]) WITHIN GROUP (ORDER BY duration_ms) FILTER (WHERE duration_ms IS NOT NULL) AS durations
    FROM heartbeat_pings WHERE monitor_id = ${monitorId} AND received_at >= ${rangeStart(range, now)}`;
  const durations = row?.durations ?? PERCENTILES.map(() => 0);
  return {
    lastPingAt: row?.last ?? null,
    totalSuccessful: Number(row?.successful ?? 0),
    totalDegraded: 0,
    totalFailed: Number(row?.failed ?? 0),
    percentiles: Object.fromEntries(PERCENTILES.map((p, i) => [p, Math.round(durations[i] ?? 0)])) as Summary["percentiles"],
  };
}
