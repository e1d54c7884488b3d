import { Prisma, type PrismaClient } from "@vigil/db";
import { REGION_IDS, TIME_RANGES, percentilesFromBuckets, type RegionId, type TimeRange } from "@vigil/domain";

export const PERCENTILES = [50, 75, 90, 95, 99] as const;
const DAY = 86_400_000;

export interface Summary {
  lastPingAt: Date | null;
  totalSuccessful: number;
  totalDegraded: number;
  totalFailed: number;
  percentiles: Record<(typeof PERCENTILES)[number], number>;
}

/** The start of a range: `range` before now, down to the hour, since aggregates are hourly. */
export function rangeStart(range: TimeRange, now: Date): Date {
  const start = new Date(now.getTime() - TIME_RANGES[range]);
  start.setUTCMinutes(0, 0, 0);
  return start;
}

/**
 * Counts and latency percentiles of a monitor over a range, from the hourly
 * aggregates (never the raw results); `regions` empty means all regions.
 */
export async function monitorSummary(
  prisma: PrismaClient,
  monitorId: string,
  range: TimeRange,
  regions: RegionId[],
  now = new Date(),
): Promise<Summary> {
  const from = rangeStart(range, now);
  // Whole UTC days inside the range come from the daily buckets; the partial
  // first and last days from the hourly ones. A range within two days reads hours only.
  // Each part is one key range per region (an OR of two would scan the hours between).
  const firstDay = new Date(Math.ceil(from.getTime() / DAY) * DAY);
  const lastDay = new Date(Math.floor(now.getTime() / DAY) * DAY);
  const [daysFrom, daysTo] = firstDay < lastDay ? [firstDay, lastDay] : [now, now];
  // "All regions" is spelled out too: the keys lead with (monitor_id, region), so a list of regions
  // is a few tight index ranges, where no region condition would read every hour the monitor has.
  const inRegions = Prisma.sql`region = ANY(${regions.length === 0 ? REGION_IDS : regions}::text[])`;
  const [counts, buckets] = await Promise.all([
    prisma.$queryRaw<{ successful: bigint | null; degraded: bigint | null; failed: bigint | null; last: Date | null }[]>`
      SELECT sum(successful) AS successful, sum(degraded) AS degraded, sum(failed) AS failed, max(last_ping_at) AS last
      FROM result_counts
      WHERE monitor_id = ${monitorId} AND hour >= ${from} AND ${inRegions}`,
    prisma.$queryRaw<{ bucket: number; count: bigint }[]>`
      SELECT bucket, sum(count) AS count FROM (
        SELECT bucket, count FROM latency_buckets
        WHERE monitor_id = ${monitorId} AND ${inRegions} AND hour >= ${from} AND hour < ${daysFrom}
        UNION ALL
        SELECT bucket, count FROM daily_latency_buckets
        WHERE monitor_id = ${monitorId} AND ${inRegions} AND day >= ${daysFrom} AND day < ${daysTo}
        UNION ALL
        SELECT bucket, count FROM latency_buckets
        WHERE monitor_id = ${monitorId} AND ${inRegions} AND hour >= ${daysTo}
      ) AS buckets
      GROUP BY bucket`,
  ]);
  const total = counts[0];
  return {
    lastPingAt: total?.last ?? null,
    totalSuccessful: Number(total?.successful ?? 0),
    totalDegraded: Number(total?.degraded ?? 0),
    totalFailed: Number(total?.failed ?? 0),
    percentiles: percentilesFromBuckets(
      buckets.map((b) => ({ bucket: Number(b.bucket), count: Number(b.count) })),
      PERCENTILES,
    ),
  };
}
