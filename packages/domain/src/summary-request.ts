import { z } from "zod";
import { SUMMARY_TIME_RANGES } from "./comparators";
import { REGION_IDS, type RegionId } from "./regions";
import { oneOf, set } from "./rules";
import { parseOrThrow } from "./validation";

const summaryRequest = z.object({
  timeRange: oneOf(SUMMARY_TIME_RANGES),
  regions: set(oneOf(REGION_IDS as [RegionId, ...RegionId[]])),
});

/** GetMonitorSummary's range (required) and regions (empty means all). */
export function parseSummaryRequest(input: { timeRange: unknown; regions: unknown[] }): z.output<typeof summaryRequest> {
  return parseOrThrow(summaryRequest, input, "");
}
