import { MonitorStatus } from "@vigil/proto";

// One wording and one look for a status on every page (overview, monitor page, incidents, regions).

const LABELS: Record<MonitorStatus, string> = {
  [MonitorStatus.UNSPECIFIED]: "Unknown",
  [MonitorStatus.ACTIVE]: "Up",
  [MonitorStatus.DEGRADED]: "Degraded",
  [MonitorStatus.ERROR]: "Down",
  [MonitorStatus.UNKNOWN]: "Unknown",
};

const CLASSES: Record<MonitorStatus, string> = {
  [MonitorStatus.UNSPECIFIED]: "status-unknown",
  [MonitorStatus.ACTIVE]: "status-up",
  [MonitorStatus.DEGRADED]: "status-degraded",
  [MonitorStatus.ERROR]: "status-down",
  [MonitorStatus.UNKNOWN]: "status-unknown",
};

export const statusLabel = (status: MonitorStatus): string => LABELS[status];

/** The status as a word with its colour: the word carries the meaning, the colour only repeats it. */
export function StatusBadge({ status, region }: { status: MonitorStatus; region?: string }) {
  return (
    <span className={`status ${CLASSES[status]}`}>
      {region && <span className="status-region">{region} </span>}
      {LABELS[status]}
    </span>
  );
}

/** Milliseconds as people read them: "87 ms", "1.24 s"; an em dash when there is no figure. */
export function formatLatency(ms: number | bigint | undefined | null): string {
  if (ms === undefined || ms === null) return "—";
  const value = Number(ms);
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** A share as a percentage with the precision uptime needs ("99.95 %"); an em dash when nothing was checked. */
export function formatPercent(ratio: number | undefined | null): string {
  if (ratio === undefined || ratio === null || Number.isNaN(ratio)) return "—";
  return `${(Math.floor(ratio * 10_000) / 100).toFixed(2)} %`;
}
