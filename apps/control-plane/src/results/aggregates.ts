import { Prisma, type PrismaClient } from "@vigil/db";
import type { DayCounts } from "@vigil/domain";

/**
 * A table that adds results up per monitor, UTC hour or day (the column is named after the
 * period) and, unless it is a roll-up across regions, region. The ingest statement adds each
 * newly stored result to every one of them (store.ts), so they all hold the same results.
 */
export interface AggregateTable {
  readonly name: string;
  readonly period: "hour" | "day";
  /** Per region, or summed over every region (a roll-up, read by summaries of all regions). */
  readonly perRegion: boolean;
  /** Counts by status, with the newest result's start where `lastPing`; or latency buckets of the results that got an answer. */
  readonly kind: "counts" | "latency";
  readonly lastPing?: boolean;
  /**
   * Rows are deleted once their period started longer ago than this (retention.ts): hourly rows
   * after the longest summary range, daily ones after DAILY_AGGREGATE_RETENTION_DAYS.
   */
  readonly keep: "summaries" | "daily";
}

export const RESULT_COUNTS: AggregateTable = { name: "result_counts", period: "hour", perRegion: true, kind: "counts", lastPing: true, keep: "summaries" };
export const LATENCY_BUCKETS: AggregateTable = { name: "latency_buckets", period: "hour", perRegion: true, kind: "latency", keep: "summaries" };
export const DAILY_LATENCY_BUCKETS: AggregateTable = { name: "daily_latency_buckets", period: "day", perRegion: true, kind: "latency", keep: "daily" };
export const ALL_REGION_RESULT_COUNTS: AggregateTable = { name: "all_region_result_counts", period: "hour", perRegion: false, kind: "counts", lastPing: true, keep: "summaries" };
export const ALL_REGION_LATENCY_BUCKETS: AggregateTable = { name: "all_region_latency_buckets", period: "hour", perRegion: false, kind: "latency", keep: "summaries" };
export const ALL_REGION_DAILY_LATENCY_BUCKETS: AggregateTable = { name: "all_region_daily_latency_buckets", period: "day", perRegion: false, kind: "latency", keep: "daily" };
/** Status pages' bars, SLO figures and monthly reports. */
export const ALL_REGION_DAILY_RESULT_COUNTS: AggregateTable = { name: "all_region_daily_result_counts", period: "day", perRegion: false, kind: "counts", keep: "daily" };
/** Monthly reports' availability per region. */
export const DAILY_RESULT_COUNTS: AggregateTable = { name: "daily_result_counts", period: "day", perRegion: true, kind: "counts", keep: "daily" };

export const AGGREGATES: readonly AggregateTable[] = [
  RESULT_COUNTS,
  LATENCY_BUCKETS,
  DAILY_LATENCY_BUCKETS,
  ALL_REGION_RESULT_COUNTS,
  ALL_REGION_LATENCY_BUCKETS,
  ALL_REGION_DAILY_LATENCY_BUCKETS,
  ALL_REGION_DAILY_RESULT_COUNTS,
  DAILY_RESULT_COUNTS,
];

/** The tables one summary reads: counts by hour, and latency buckets by hour and by whole day. */
export interface SummaryTables {
  readonly counts: AggregateTable;
  readonly hourly: AggregateTable;
  readonly daily: AggregateTable;
}

export const PER_REGION: SummaryTables = { counts: RESULT_COUNTS, hourly: LATENCY_BUCKETS, daily: DAILY_LATENCY_BUCKETS };
export const ALL_REGIONS: SummaryTables = { counts: ALL_REGION_RESULT_COUNTS, hourly: ALL_REGION_LATENCY_BUCKETS, daily: ALL_REGION_DAILY_LATENCY_BUCKETS };

/**
 * The one read of the aggregates, for summaries and status pages alike: `columns` of `table`'s rows
 * that `where` keeps, whose hour or day starts in [from, to) (from `from` on without `to`).
 */
export function aggregateRows(table: AggregateTable, columns: Prisma.Sql, where: Prisma.Sql, from: Date, to?: Date): Prisma.Sql {
  const period = Prisma.raw(table.period);
  const before = to === undefined ? Prisma.empty : Prisma.sql` AND ${period} < ${to}`;
  return Prisma.sql`SELECT ${columns} FROM ${Prisma.raw(table.name)} WHERE ${where} AND ${period} >= ${from}${before}`;
}

/** What the daily roll-ups across regions hold of a monitor's UTC day (YYYY-MM-DD): nothing when it was not checked. */
export interface Days {
  counts(monitorId: string, date: string): DayCounts | undefined;
  /** Latency buckets, of the monitors asked for with latency and days with answered checks only. */
  buckets(monitorId: string, date: string): { bucket: number; count: number }[] | undefined;
}

/** Each day of `monitorIds` from `from` on (status pages' bars), with latency buckets for `latencyOf`. */
export async function dailyRollups(prisma: PrismaClient, monitorIds: readonly string[], latencyOf: readonly string[], from: Date): Promise<Days> {
  const of = (ids: readonly string[]) => Prisma.sql`monitor_id = ANY(${[...ids]}::text[])`;
  const [counts, latencies] = await Promise.all([
    prisma.$queryRaw<({ monitor_id: string; day: Date } & DayCounts)[]>(
      aggregateRows(ALL_REGION_DAILY_RESULT_COUNTS, Prisma.sql`monitor_id, day, successful, degraded, failed`, of(monitorIds), from),
    ),
    prisma.$queryRaw<{ monitor_id: string; day: Date; bucket: number; count: number }[]>(
      aggregateRows(ALL_REGION_DAILY_LATENCY_BUCKETS, Prisma.sql`monitor_id, day, bucket, count`, of(latencyOf), from),
    ),
  ]);
  const keyOf = (monitorId: string, date: string) => `${monitorId}|${date}`;
  const dayCounts = new Map(counts.map((c) => [keyOf(c.monitor_id, dateOf(c.day)), { successful: c.successful, degraded: c.degraded, failed: c.failed }]));
  const dayBuckets = new Map<string, { bucket: number; count: number }[]>();
  for (const l of latencies) {
    const key = keyOf(l.monitor_id, dateOf(l.day));
    const buckets = dayBuckets.get(key) ?? [];
    buckets.push({ bucket: l.bucket, count: l.count });
    dayBuckets.set(key, buckets);
  }
  return {
    counts: (monitorId, date) => dayCounts.get(keyOf(monitorId, date)),
    buckets: (monitorId, date) => dayBuckets.get(keyOf(monitorId, date)),
  };
}

/** A UTC day as YYYY-MM-DD. */
export const dateOf = (day: Date) => day.toISOString().slice(0, 10);
