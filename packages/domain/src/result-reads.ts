import { z } from "zod";
import type { TimeRange } from "./comparators";
import { DEFAULTS, LIMITS } from "./limits";
import { integer } from "./rules";
import { regionSet } from "./summary-request";
import { parseOrThrow } from "./validation";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Each range of GetMonitorTimeseries in buckets of a fixed width, aligned to UTC, read from where that
 * width is cheapest: the raw results for the ranges they still cover (RESULT_RETENTION_DAYS is at
 * least 1), the hourly aggregates for a week, the daily latency aggregates for two. 15 to 169
 * points, enough for a chart and few enough to draw at once.
 */
export const TIMESERIES_RESOLUTIONS: Record<TimeRange, { bucketMs: number; source: "results" | "hourly" | "daily" }> = {
  "1h": { bucketMs: MINUTE_MS, source: "results" },
  "1d": { bucketMs: 15 * MINUTE_MS, source: "results" },
  "7d": { bucketMs: HOUR_MS, source: "hourly" },
  "14d": { bucketMs: 24 * HOUR_MS, source: "daily" },
};

const resultsRequest = z.object({
  regions: regionSet(),
  limit: integer(LIMITS.listLimit).default(DEFAULTS.listLimit),
});

/** ListCheckResults's regions (empty means all) and limit (1 to 100, 50 when absent). */
export function parseResultsRequest(input: { regions: unknown[]; limit?: number | undefined }): z.output<typeof resultsRequest> {
  return parseOrThrow(resultsRequest, input, "");
}

/** ListRegions counts a region's checks per minute over this window. */
export const CHECKS_PER_MINUTE_WINDOW_MS = 5 * MINUTE_MS;
