import { z } from "zod";
import { TIME_RANGES, type TimeRange } from "./comparators";
import { REGION_IDS, type RegionId } from "./regions";
import { oneOf, set } from "./rules";
import { parseOrThrow } from "./validation";

const summaryRequest = z.object({
  timeRange: oneOf(Object.keys(TIME_RANGES) as [TimeRange, ...TimeRange[]]),
  regions: set(oneOf(REGION_IDS as [RegionId, ...RegionId[]])),
});

/** GetMonitorSummary's range (required) and regions (empty means all). */
export function parseSummaryRequest(input: { timeRange: unknown; regions: unknown[] }): z.output<typeof summaryRequest> {
  return parseOrThrow(summaryRequest, input, "");
}
