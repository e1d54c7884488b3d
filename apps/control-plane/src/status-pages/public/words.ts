import type { ComponentStatus, DayStatus, IncidentStatus } from "@vigil/domain";

/** The words and symbols that say each status, so that no status is told by colour alone. */
export const COMPONENT_STATUS_WORDS: Record<ComponentStatus, { label: string; symbol: string }> = {
  operational: { label: "Operational", symbol: "✓" },
  under_maintenance: { label: "Under maintenance", symbol: "⚙" },
  degraded_performance: { label: "Degraded performance", symbol: "!" },
  partial_outage: { label: "Partial outage", symbol: "✕" },
  major_outage: { label: "Major outage", symbol: "✕" },
};

export const DAY_STATUS_WORDS: Record<DayStatus, string> = {
  no_data: "No data",
  operational: "Operational",
  degraded: "Degraded",
  outage: "Outage",
};

/** An automatic incident's title: what happened to which components (the monitor's name when the page names none). */
export function automaticTitle(severity: "degraded" | "error", componentNames: readonly string[], monitorName: string): string {
  const what = severity === "error" ? "Outage" : "Degraded performance";
  return `${what}: ${componentNames.join(", ") || monitorName}`;
}

export const INCIDENT_STATUS_WORDS: Record<IncidentStatus, string> = {
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved",
};

/** A UTC month (YYYY-MM) in words: "November 2026". */
export const monthWords = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });

/** A duration in words: "2 d 3 h", "1 h 5 min", "45 s". */
export function durationWords(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const parts: [number, string][] = [
    [Math.floor(seconds / 86_400), "d"],
    [Math.floor((seconds % 86_400) / 3_600), "h"],
    [Math.floor((seconds % 3_600) / 60), "min"],
    [seconds % 60, "s"],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first === -1) return "0 s";
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n} ${unit}`)
    .join(" ");
}

/** A time as the page shows it, in UTC: "2026-11-23 16:40 UTC". */
export const utcWords = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** An uptime share as shown: two decimals, never rounded up to 100 % while a check failed. */
export function uptimeWords(uptime: number | null): string {
  if (uptime === null) return "no data";
  const shown = Math.floor(uptime * 100) / 100;
  return `${shown.toFixed(2)} %`;
}

/** What a maintenance occurrence is at, in Statuspage's words and the page's. */
export const MAINTENANCE_STATUS_WORDS = { scheduled: "Scheduled", in_progress: "In progress", completed: "Completed" } as const;
