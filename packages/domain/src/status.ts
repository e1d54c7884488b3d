import type { MonitorStatus } from "./comparators";

/** A check's verdict as the status of its region: a success makes the region active. */
export function regionStatusOf(check: "success" | "degraded" | "error"): MonitorStatus {
  return check === "success" ? "active" : check;
}

const SEVERITY: Record<MonitorStatus, number> = { unknown: 0, active: 1, degraded: 2, error: 3 };

/**
 * A monitor's status is its worst region: error if any region errs, else
 * degraded if any is degraded, else active; unknown before any result.
 */
export function overallStatus(regions: readonly MonitorStatus[]): MonitorStatus {
  return regions.reduce<MonitorStatus>((worst, s) => (SEVERITY[s] > SEVERITY[worst] ? s : worst), "unknown");
}
