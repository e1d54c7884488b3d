import { z } from "zod";
import { SUMMARY_TIME_RANGES, TIME_RANGES, type TimeRange } from "./comparators";
import { REGION_IDS, type RegionId } from "./regions";
import { oneOf, set } from "./rules";
import { parseOrThrow } from "./validation";

/** Regions to read: a set of known regions, empty meaning all. */
export const regionSet = () => set(oneOf(REGION_IDS as [RegionId, ...RegionId[]]));

const rangeRequest = <const R extends readonly [TimeRange, ...TimeRange[]]>(ranges: R) => z.object({ timeRange: oneOf(ranges), regions: regionSet() });
const summaryRequest = rangeRequest(SUMMARY_TIME_RANGES);
const timeseriesRequest = rangeRequest(Object.keys(TIME_RANGES) as [TimeRange, ...TimeRange[]]);

type RangeInput = { timeRange: unknown; regions: unknown[] };

/** GetMonitorSummary's range (required) and regions (empty means all). */
export function parseSummaryRequest(input: RangeInput): z.output<typeof summaryRequest> {
  return parseOrThrow(summaryRequest, input, "");
}

/** GetMonitorTimeseries's range (required, 1h as well) and regions (empty means all). */
export function parseTimeseriesRequest(input: RangeInput): z.output<typeof timeseriesRequest> {
  return parseOrThrow(timeseriesRequest, input, "");
}
