import { Prisma, type PrismaClient } from "@vigil/db";
import { REGION_IDS, TIME_RANGES, percentilesFromBuckets, type RegionId, type TimeRange } from "@vigil/domain";
import { ALL_REGIONS, PER_REGION, aggregateRows, type SummaryTables } from "./aggregates";

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
 * Counts and latency percentiles of a monitor over a range, from the aggregates (never the raw
 * results); `regions` empty (or every region) means all regions, read from the roll-ups across regions.
 */
export async function monitorSummary(
  prisma: PrismaClient,
  monitorId: string,
  range: TimeRange,
  regions: RegionId[],
  now = new Date(),
): Promise<Summary> {
  return summaryFrom(prisma, tablesFor(regions), regions, monitorId, rangeStart(range, now), now);
}

/** `regions` empty (or every region) reads the roll-ups across regions, otherwise the per-region tables. */
export function tablesFor(regions: readonly RegionId[]): SummaryTables {
  const allRegions = regions.length === 0 || REGION_IDS.every((region) => regions.includes(region));
  return allRegions ? ALL_REGIONS : PER_REGION;
}

/** The whole UTC days between `from` and `now`, [daysFrom, daysTo); an empty span at `now` when there are none. */
export function wholeDays(from: Date, now: Date): { daysFrom: Date; daysTo: Date } {
  const firstDay = new Date(Math.ceil(from.getTime() / DAY) * DAY);
  const lastDay = new Date(Math.floor(now.getTime() / DAY) * DAY);
  return firstDay < lastDay ? { daysFrom: firstDay, daysTo: lastDay } : { daysFrom: now, daysTo: now };
}

/**
 * The condition on a summary's rows. Regions are spelled out for the per-region tables, whose keys
 * lead with (monitor_id, region): a few tight index ranges.
 */
export function rowsOf(tables: SummaryTables, monitorId: string, regions: readonly RegionId[]): Prisma.Sql {
  return tables.counts.perRegion
    ? Prisma.sql`monitor_id = ${monitorId} AND region = ANY(${regions}::text[])`
    : Prisma.sql`monitor_id = ${monitorId}`;
}

/**
 * The summary from `from` to now in one statement: counts from the hourly counts, latency buckets
 * of whole UTC days from the daily table and of the partial first and last days from the hourly
 * one (a range within two days reads hours only). `regions` narrows per-region tables.
 */
export async function summaryFrom(
  prisma: PrismaClient,
  tables: SummaryTables,
  regions: readonly RegionId[],
  monitorId: string,
  from: Date,
  now: Date,
): Promise<Summary> {
  const { daysFrom, daysTo } = wholeDays(from, now);
  // Each part is one key range (per region): an OR of two would scan the hours between.
  const ofMonitor = rowsOf(tables, monitorId, regions);
  const bucketCounts = Prisma.sql`bucket, count`;
  // One row: the totals, and the histogram as two arrays in the same order (sums as float8, which
  // arrive as numbers where int8 would arrive as BigInt).
  const [row] = await prisma.$queryRaw<SummaryRow[]>`
    WITH buckets AS (
      SELECT bucket, sum(count) AS count FROM (
        ${aggregateRows(tables.hourly, bucketCounts, ofMonitor, from, daysFrom)}
        UNION ALL
        ${aggregateRows(tables.daily, bucketCounts, ofMonitor, daysFrom, daysTo)}
        UNION ALL
        ${aggregateRows(tables.hourly, bucketCounts, ofMonitor, daysTo)}
      ) AS parts
      GROUP BY bucket
    )
    SELECT totals.*, histogram.* FROM
      (${aggregateRows(tables.counts, TOTALS, ofMonitor, from)}) AS totals,
      (SELECT array_agg(bucket) AS buckets, array_agg(count::float8) AS bucket_counts FROM buckets) AS histogram`;
  const buckets = row?.buckets ?? [];
  const counts = row?.bucket_counts ?? [];
  return {
    lastPingAt: row?.last ?? null,
    totalSuccessful: row?.successful ?? 0,
    totalDegraded: row?.degraded ?? 0,
    totalFailed: row?.failed ?? 0,
    percentiles: percentilesFromBuckets(
      buckets.map((bucket, i) => ({ bucket, count: counts[i]! })),
      PERCENTILES,
    ),
  };
}

const TOTALS = Prisma.sql`sum(successful)::float8 AS successful, sum(degraded)::float8 AS degraded, sum(failed)::float8 AS failed, max(last_ping_at) AS last`;

interface SummaryRow {
  successful: number | null;
  degraded: number | null;
  failed: number | null;
  last: Date | null;
  /** Null without answered checks in the range. */
  buckets: number[] | null;
  bucket_counts: number[] | null;
}
