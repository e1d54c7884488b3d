import { Prisma, type PrismaClient } from "@vigil/db";
import { TIMESERIES_RESOLUTIONS, TIME_RANGES, percentilesFromBuckets, type RegionId, type TimeRange } from "@vigil/domain";
import { aggregateRows } from "./aggregates";
import { rowsOf, tablesFor } from "./summary";

export const TIMESERIES_PERCENTILES = [50, 95, 99] as const;

export interface TimeseriesBucket {
  start: Date;
  successful: number;
  degraded: number;
  failed: number;
  percentiles: Record<(typeof TIMESERIES_PERCENTILES)[number], number>;
}

export interface Timeseries {
  bucketMs: number;
  /** Oldest first, every bucket from the one holding the range's start to the one holding now. */
  buckets: TimeseriesBucket[];
}

type Counts = Pick<TimeseriesBucket, "successful" | "degraded" | "failed">;

/**
 * A monitor's results over a range in buckets of the range's width (TIMESERIES_RESOLUTIONS),
 * aligned to UTC: exact percentiles from the raw results for short ranges, and percentiles of the
 * aggregates' latency buckets (within PERCENTILE_RELATIVE_ERROR) for long ones.
 */
export async function monitorTimeseries(
  prisma: PrismaClient,
  monitorId: string,
  range: TimeRange,
  regions: readonly RegionId[],
  now = new Date(),
): Promise<Timeseries> {
  const { bucketMs, source } = TIMESERIES_RESOLUTIONS[range];
  const first = Math.floor((now.getTime() - TIME_RANGES[range]) / bucketMs);
  const from = new Date(first * bucketMs);
  const read = source === "results" ? fromResults : fromAggregates;
  const rows = new Map((await read(prisma, monitorId, regions, bucketMs, from, source)).map((row) => [row.slot, row]));
  const buckets: TimeseriesBucket[] = [];
  for (let slot = first; slot <= Math.floor(now.getTime() / bucketMs); slot++) {
    const row = rows.get(slot);
    buckets.push({
      start: new Date(slot * bucketMs),
      successful: row?.successful ?? 0,
      degraded: row?.degraded ?? 0,
      failed: row?.failed ?? 0,
      percentiles: row?.percentiles ?? percentilesFromBuckets([], TIMESERIES_PERCENTILES),
    });
  }
  return { bucketMs, buckets };
}

type Row = Counts & { slot: number; percentiles: TimeseriesBucket["percentiles"] };

/** The bucket a time falls in, as a number (float8: int8 would arrive as BigInt). */
const slotOf = (column: string, bucketMs: number) => Prisma.sql`floor(extract(epoch FROM ${Prisma.raw(column)}) * 1000 / ${bucketMs})::float8 AS slot`;

/** Counts and exact nearest-rank percentiles (percentile_disc) of the checks that got an answer, per bucket. */
async function fromResults(prisma: PrismaClient, monitorId: string, regions: readonly RegionId[], bucketMs: number, from: Date): Promise<Row[]> {
  const ofRegions = tablesFor(regions).counts.perRegion ? Prisma.sql` AND region = ANY(${[...regions]}::text[])` : Prisma.empty;
  const rows = await prisma.$queryRaw<(Counts & { slot: number; latencies: number[] | null })[]>`
    SELECT ${slotOf("started_at", bucketMs)},
      (count(*) FILTER (WHERE status = 'success'))::float8 AS successful,
      (count(*) FILTER (WHERE status = 'degraded'))::float8 AS degraded,
      (count(*) FILTER (WHERE status = 'error'))::float8 AS failed,
      percentile_disc(${TIMESERIES_PERCENTILES.map((p) => p / 100)}::float8[]) WITHIN GROUP (ORDER BY latency_ms) FILTER (WHERE status <> 'error') AS latencies
    FROM check_results WHERE monitor_id = ${monitorId} AND started_at >= ${from}${ofRegions}
    GROUP BY 1`;
  return rows.map(({ latencies, ...row }) => ({
    ...row,
    percentiles: Object.fromEntries(TIMESERIES_PERCENTILES.map((p, i) => [p, Math.round(latencies?.[i] ?? 0)])) as Row["percentiles"],
  }));
}

/** Counts from the hourly counts and percentiles from the hourly or daily latency buckets, summed per bucket. */
async function fromAggregates(
  prisma: PrismaClient,
  monitorId: string,
  regions: readonly RegionId[],
  bucketMs: number,
  from: Date,
  source: "results" | "hourly" | "daily",
): Promise<Row[]> {
  const tables = tablesFor(regions);
  const latency = source === "daily" ? tables.daily : tables.hourly;
  const where = rowsOf(tables, monitorId, regions);
  const [counts, buckets] = await Promise.all([
    prisma.$queryRaw<(Counts & { slot: number })[]>`
      SELECT slot, sum(successful)::float8 AS successful, sum(degraded)::float8 AS degraded, sum(failed)::float8 AS failed
      FROM (${aggregateRows(tables.counts, Prisma.sql`${slotOf(tables.counts.period, bucketMs)}, successful, degraded, failed`, where, from)}) AS hours
      GROUP BY slot`,
    prisma.$queryRaw<{ slot: number; bucket: number; count: number }[]>`
      SELECT slot, bucket, sum(count)::float8 AS count
      FROM (${aggregateRows(latency, Prisma.sql`${slotOf(latency.period, bucketMs)}, bucket, count`, where, from)}) AS periods
      GROUP BY slot, bucket`,
  ]);
  const histograms = new Map<number, { bucket: number; count: number }[]>();
  for (const { slot, bucket, count } of buckets) {
    const histogram = histograms.get(slot) ?? [];
    histogram.push({ bucket, count });
    histograms.set(slot, histogram);
  }
  return counts.map((row) => ({ ...row, percentiles: percentilesFromBuckets(histograms.get(row.slot) ?? [], TIMESERIES_PERCENTILES) }));
}
