import { AGGREGATE_RETENTION_MS } from "@vigil/domain";

const { summaries: SUMMARY_KEEP_MS, dailyBars: BAR_KEEP_MS } = AGGREGATE_RETENTION_MS;

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
  /** Rows are deleted once their period started this long ago (retention.ts). */
  readonly keepMs: number;
}

export const RESULT_COUNTS: AggregateTable = { name: "result_counts", period: "hour", perRegion: true, kind: "counts", lastPing: true, keepMs: SUMMARY_KEEP_MS };
export const LATENCY_BUCKETS: AggregateTable = { name: "latency_buckets", period: "hour", perRegion: true, kind: "latency", keepMs: SUMMARY_KEEP_MS };
export const DAILY_LATENCY_BUCKETS: AggregateTable = { name: "daily_latency_buckets", period: "day", perRegion: true, kind: "latency", keepMs: SUMMARY_KEEP_MS };
export const ALL_REGION_RESULT_COUNTS: AggregateTable = { name: "all_region_result_counts", period: "hour", perRegion: false, kind: "counts", lastPing: true, keepMs: SUMMARY_KEEP_MS };
export const ALL_REGION_LATENCY_BUCKETS: AggregateTable = { name: "all_region_latency_buckets", period: "hour", perRegion: false, kind: "latency", keepMs: SUMMARY_KEEP_MS };
export const ALL_REGION_DAILY_LATENCY_BUCKETS: AggregateTable = { name: "all_region_daily_latency_buckets", period: "day", perRegion: false, kind: "latency", keepMs: SUMMARY_KEEP_MS };
/** Status pages' bars (read by nothing else). */
export const ALL_REGION_DAILY_RESULT_COUNTS: AggregateTable = { name: "all_region_daily_result_counts", period: "day", perRegion: false, kind: "counts", keepMs: BAR_KEEP_MS };

export const AGGREGATES: readonly AggregateTable[] = [
  RESULT_COUNTS,
  LATENCY_BUCKETS,
  DAILY_LATENCY_BUCKETS,
  ALL_REGION_RESULT_COUNTS,
  ALL_REGION_LATENCY_BUCKETS,
  ALL_REGION_DAILY_LATENCY_BUCKETS,
  ALL_REGION_DAILY_RESULT_COUNTS,
];

/** The tables one summary reads: counts by hour, and latency buckets by hour and by whole day. */
export interface SummaryTables {
  readonly counts: AggregateTable;
  readonly hourly: AggregateTable;
  readonly daily: AggregateTable;
}

export const PER_REGION: SummaryTables = { counts: RESULT_COUNTS, hourly: LATENCY_BUCKETS, daily: DAILY_LATENCY_BUCKETS };
export const ALL_REGIONS: SummaryTables = { counts: ALL_REGION_RESULT_COUNTS, hourly: ALL_REGION_LATENCY_BUCKETS, daily: ALL_REGION_DAILY_LATENCY_BUCKETS };
