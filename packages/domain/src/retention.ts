import { TIME_RANGES } from "./comparators";

const DAY_MS = 86_400_000;

/** What a status page shows of the past (docs/status-pages.md). */
export const PAGE_HISTORY = {
  /** UTC days a component's bar shows: today and the 89 before it. */
  barDays: 90,
  /** Resolved incidents are listed this long after they ended (open ones always). */
  recentIncidentDays: 14,
  /** At most this many incidents are listed, the open ones and the newest first, so a flapping monitor cannot swell the page. */
  maxIncidents: 50,
  /** /history lists the incidents that started in this many UTC months, this one included… */
  historyMonths: 12,
  /** …at most this many of them, the newest first. */
  historyMaxIncidents: 500,
} as const;

/** How long the hourly aggregates of results are kept: an hour's rows are deleted once it started this long ago. */
export const AGGREGATE_RETENTION_MS = {
  /** Hourly counts and latency buckets outlive the longest summary range by a day; nothing reads them after that. */
  summaries: TIME_RANGES["14d"] + DAY_MS,
} as const;

/**
 * DAILY_AGGREGATE_RETENTION_DAYS: the daily aggregates (counts and latency buckets, per region and
 * rolled up) are kept this many days, so that a year of monthly reports can be made. They draw the
 * status pages' bars and the SLO window too, so it never falls below one day more than the bars show.
 */
export const DAILY_AGGREGATE_RETENTION_DAYS = { min: PAGE_HISTORY.barDays + 1, max: 3650, default: 400 } as const;
