import type { RegionVerdict } from "./status";
import type { MonitorStatus } from "./comparators";

/**
 * What a status page says, in the words of Atlassian Statuspage's public API
 * (summary.json), so that tools made for it read Vigil's pages. The mapping
 * from monitor statuses is documented in docs/status-pages.md.
 */
/**
 * In order, best first: the worst of several (a group) is the last. A component
 * named by a maintenance going on is under_maintenance whatever its monitor
 * says; among others it ranks above operational only.
 */
export const COMPONENT_STATUSES = ["operational", "under_maintenance", "degraded_performance", "partial_outage", "major_outage"] as const;
export type ComponentStatus = (typeof COMPONENT_STATUSES)[number];

/**
 * A monitor component's status. The monitor's own status already applies the
 * region quorum (status.ts), so the page says what alerting says: an error
 * monitor is a major outage when every region that reports fails, else a
 * partial one; a degraded monitor is degraded performance; an active one, and
 * one that has no verdict yet (unknown), is operational.
 */
export function componentStatusOf(monitorStatus: MonitorStatus, regions: readonly RegionVerdict[]): ComponentStatus {
  if (monitorStatus === "error") {
    const reporting = regions.filter((verdict) => verdict !== "unknown");
    return reporting.length > 0 && reporting.some((verdict) => verdict !== "error") ? "partial_outage" : "major_outage";
  }
  return monitorStatus === "degraded" ? "degraded_performance" : "operational";
}

export type PageIndicator = "none" | "minor" | "major" | "critical";

/** The page's overall status from its components' (Statuspage's indicator and its words). */
export function pageStatusOf(components: readonly ComponentStatus[]): { indicator: PageIndicator; description: string } {
  if (components.length > 0 && components.every((status) => status === "major_outage")) {
    return { indicator: "critical", description: "Major System Outage" };
  }
  if (components.some((status) => status === "major_outage" || status === "partial_outage")) {
    return { indicator: "major", description: "Partial System Outage" };
  }
  if (components.some((status) => status === "degraded_performance")) return { indicator: "minor", description: "Degraded System Performance" };
  if (components.some((status) => status === "under_maintenance")) return { indicator: "none", description: "Service Under Maintenance" };
  return { indicator: "none", description: "All Systems Operational" };
}

/** A day of a component's 90-day bar. */
export type DayStatus = "no_data" | "operational" | "degraded" | "outage";

export interface DayCounts {
  successful: number;
  degraded: number;
  failed: number;
}

/** A day with a failed share at or above this is an outage; below it, a degraded day. */
export const OUTAGE_FAILED_SHARE = 0.01;
/** A day without failures is degraded when this share of its checks or more was slow. */
export const DEGRADED_SLOW_SHARE = 0.05;

/** Checks that did not fail over all checks, in %; null without checks. */
export function uptimePercent({ successful, degraded, failed }: DayCounts): number | null {
  const total = successful + degraded + failed;
  return total === 0 ? null : (100 * (successful + degraded)) / total;
}

/** How a day's checks (all regions of the monitor) colour its bar. */
export function dayStatusOf(day: DayCounts): DayStatus {
  const total = day.successful + day.degraded + day.failed;
  if (total === 0) return "no_data";
  if (day.failed / total >= OUTAGE_FAILED_SHARE) return "outage";
  if (day.failed > 0 || day.degraded / total >= DEGRADED_SLOW_SHARE) return "degraded";
  return "operational";
}
