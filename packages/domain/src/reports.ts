import { ValidationError } from "./validation";

/** Monthly reports (docs/api.md "Reports"): the latency percentiles they give, read from the daily latency buckets. */
export const REPORT_PERCENTILES = [50, 90, 95, 99] as const;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const MONTH_RULE = "must be a month as YYYY-MM, e.g. 2026-11";

/** A report's month: its UTC start and the start of the next one, [from, to). */
export interface ReportMonth {
  month: string;
  from: Date;
  to: Date;
}

/**
 * A report's `month`, refused when it is not YYYY-MM or is after the month of `now` (nothing is known of it yet). A month
 * older than the daily aggregates' retention is answered with what is kept: nothing.
 * @throws ValidationError naming `field`
 */
export function parseReportMonth(month: string, now: Date, field = "month"): ReportMonth {
  const match = MONTH.exec(month);
  if (!match) throw ValidationError.of(field, MONTH_RULE);
  const [year, index] = [Number(match[1]), Number(match[2]) - 1];
  const from = new Date(Date.UTC(year, index, 1));
  if (from.getTime() > Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) throw ValidationError.of(field, `must not be after the current month (${now.toISOString().slice(0, 7)})`);
  return { month, from, to: new Date(Date.UTC(year, index + 1, 1)) };
}

/**
 * The time `intervals` cover within [from, to), overlaps counted once (two regions' incidents at once are one outage);
 * an interval without an end lasts until `to`.
 */
export function coveredMs(intervals: readonly { start: Date; end: Date | null }[], from: Date, to: Date): number {
  const clipped = intervals
    .map(({ start, end }) => [Math.max(start.getTime(), from.getTime()), Math.min((end ?? to).getTime(), to.getTime())] as const)
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reached = -Infinity;
  for (const [start, end] of clipped) {
    if (end <= reached) continue;
    total += end - Math.max(start, reached);
    reached = end;
  }
  return total;
}
