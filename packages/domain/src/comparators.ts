/**
 * Comparator names as the contract writes them (the provider's values); the
 * RPC enums map onto these (NumberComparator.EQUAL is `eq`).
 */
export const NUMBER_COMPARATORS = ["eq", "neq", "gt", "gte", "lt", "lte"] as const;
export const STRING_COMPARATORS = ["contains", "not_contains", "eq", "neq", "empty", "not_empty", "gt", "gte", "lt", "lte"] as const;
/** What a JSON body assertion compares the selected nodes by: the string comparators, plus whether the query selects anything. */
export const JSON_COMPARATORS = [...STRING_COMPARATORS, "exists", "not_exists"] as const;
export const RECORD_COMPARATORS = ["eq", "neq", "contains", "not_contains"] as const;
export const RECORD_TYPES = ["A", "AAAA", "CNAME", "MX", "TXT"] as const;
export const HTTP_METHODS = ["GET", "POST", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export type NumberComparator = (typeof NUMBER_COMPARATORS)[number];
export type StringComparator = (typeof STRING_COMPARATORS)[number];
export type JsonComparator = (typeof JSON_COMPARATORS)[number];
export type RecordComparator = (typeof RECORD_COMPARATORS)[number];
export type RecordType = (typeof RECORD_TYPES)[number];
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const MONITOR_STATUSES = ["active", "degraded", "error", "unknown"] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];

export const TIME_RANGES = { "1h": 3_600_000, "1d": 86_400_000, "7d": 7 * 86_400_000, "14d": 14 * 86_400_000 } as const;
export type TimeRange = keyof typeof TIME_RANGES;
/** GetMonitorSummary reads hourly aggregates only, too coarse for the last hour. */
export const SUMMARY_TIME_RANGES = ["1d", "7d", "14d"] as const satisfies readonly TimeRange[];
/** ListMonitorOverviews' sparkline: this many UTC hours, the current one last. */
export const OVERVIEW_HOURS = 24;
