import { z } from "zod";
import { TIME_RANGES, type TimeRange } from "./comparators";
import { DEFAULTS, LIMITS } from "./limits";
import { REGION_IDS, type RegionId } from "./regions";
import { integer, oneOf, set } from "./rules";
import { parseOrThrow } from "./validation";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Each range of GetMonitorTimeseries in buckets of a fixed width, aligned to UTC, read from where that
 * width is cheapest: the raw results for the ranges they still cover (RESULT_RETENTION_DAYS is at
 * least 1), the hourly aggregates for a week, the daily latency aggregates for two. About 60 to 170
 * points, enough for a chart and few enough to draw at once.
 */
export const TIMESERIES_RESOLUTIONS: Record<TimeRange, { bucketMs: number; source: "results" | "hourly" | "daily" }> = {
  "1h": { bucketMs: MINUTE_MS, source: "results" },
  "1d": { bucketMs: 15 * MINUTE_MS, source: "results" },
  "7d": { bucketMs: HOUR_MS, source: "hourly" },
  "14d": { bucketMs: 24 * HOUR_MS, source: "daily" },
};

const regions = set(oneOf(REGION_IDS as [RegionId, ...RegionId[]]));

const timeseriesRequest = z.object({
  timeRange: oneOf(Object.keys(TIME_RANGES) as [TimeRange, ...TimeRange[]]),
  regions,
});

/** GetMonitorTimeseries's range (required) and regions (empty means all). */
export function parseTimeseriesRequest(input: { timeRange: unknown; regions: unknown[] }): z.output<typeof timeseriesRequest> {
  return parseOrThrow(timeseriesRequest, input, "");
}

const resultsRequest = z.object({
  regions,
  limit: integer(LIMITS.listLimit).default(DEFAULTS.listLimit),
});

/** ListCheckResults's regions (empty means all) and limit (1 to 100, 50 when absent). */
export function parseResultsRequest(input: { regions: unknown[]; limit?: number | undefined }): z.output<typeof resultsRequest> {
  return parseOrThrow(resultsRequest, input, "");
}

/** ListRegions counts a region's checks per minute over this window. */
export const CHECKS_PER_MINUTE_WINDOW_MS = 5 * MINUTE_MS;
