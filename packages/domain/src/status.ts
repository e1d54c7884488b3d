import type { FailureReason } from "./alerting";
import type { MonitorStatus } from "./comparators";
import type { RegionId } from "./regions";

/** A check's verdict as the status of its region: a success makes the region active. */
export function regionStatusOf(check: "success" | "degraded" | "error"): MonitorStatus {
  return check === "success" ? "active" : check;
}

/** How many consecutive checks move a region: failing ones into error, good ones out of it. */
export interface Confirmations {
  confirmations: number;
  recoveryConfirmations: number;
}

/**
 * A region as its status counts toward the quorum, and the run of newest checks that
 * disagree with it (failing checks of a region not in error, good ones of a region in
 * error), which moves it once it reaches the monitor's confirmations.
 */
export interface RegionCount {
  status: "active" | "degraded" | "error";
  streak: number;
}

/**
 * The region after one more check. Only errors wait for confirmations: a degraded check
 * of a region not in error moves it at once, as a success does (degraded is a slow
 * answer, not a failure). A region in error counts degraded and successful checks alike
 * toward its recovery, and recovers to what the last of them said. A region never
 * checked before starts as if it were up, so its first failing checks need confirming too.
 * With 1 and 1 (the defaults) every check moves its region, as before these settings.
 */
export function nextRegionCount(current: RegionCount | undefined, check: "success" | "degraded" | "error", rules: Confirmations): RegionCount {
  const seen = regionStatusOf(check) as RegionCount["status"];
  const from = current ?? { status: "active", streak: 0 };
  if (from.status === "error") {
    if (seen === "error") return { status: "error", streak: 0 };
    const streak = from.streak + 1;
    return streak >= rules.recoveryConfirmations ? { status: seen, streak: 0 } : { status: "error", streak };
  }
  if (seen !== "error") return { status: seen, streak: 0 };
  const streak = from.streak + 1;
  return streak >= rules.confirmations ? { status: "error", streak: 0 } : { status: from.status, streak };
}

/**
 * How many of a monitor's checked regions must agree before the monitor
 * fails or degrades: "half" (at least half, the default), "majority" (more
 * than half), "all", or a number of regions (capped at the regions checked).
 * Always at least one, so a single-region monitor follows its region.
 */
export type QuorumRule = "half" | "majority" | "all" | number;
export const DEFAULT_QUORUM: QuorumRule = "half";

/** Parses the ALERT_QUORUM setting; null when it is none of the forms above. */
export function parseQuorumRule(text: string): QuorumRule | null {
  const value = text.trim().toLowerCase();
  if (value === "half" || value === "majority" || value === "all") return value;
  return /^[1-9]\d{0,2}$/.test(value) ? Number(value) : null;
}

/**
 * A monitor's own alertQuorum: "" (follow the deployment's ALERT_QUORUM) or one of the forms
 * above exactly as it prints ("half", "majority", "all", "2"), so what a client sends is what it
 * reads back. Null when it is neither.
 */
export function parseAlertQuorum(text: string): QuorumRule | "" | null {
  if (text === "") return "";
  const rule = parseQuorumRule(text);
  return rule !== null && String(rule) === text ? rule : null;
}

export const ALERT_QUORUM_RULE = 'must be "half", "majority", "all" or a number of regions from 1, or empty for the deployment\'s ALERT_QUORUM';

/** The rule a monitor's status follows: its own alertQuorum, else the deployment's. */
export function monitorQuorum(alertQuorum: string, deployment: QuorumRule): QuorumRule {
  const own = parseAlertQuorum(alertQuorum);
  return own === null || own === "" ? deployment : own;
}

export function quorumSize(rule: QuorumRule, checkedRegions: number): number {
  const n = Math.max(checkedRegions, 1);
  const size =
    rule === "half" ? Math.ceil(n / 2) : rule === "majority" ? Math.floor(n / 2) + 1 : rule === "all" ? n : Math.min(rule, n);
  return Math.max(size, 1);
}

/** A region without a result for this many of its monitor's periods is stale: its agents are gone. */
export const STALE_AFTER_PERIODS = 3;

export function isStale(lastResultAt: Date, asOf: Date, periodMs: number): boolean {
  return asOf.getTime() - lastResultAt.getTime() > STALE_AFTER_PERIODS * periodMs;
}

/** What is known of one checked region: its newest result's status, or nothing (never checked, or stale). */
export type RegionVerdict = "active" | "degraded" | "error" | "unknown";

/**
 * A checked region's verdict at a transition with its newest check, the one shape it has from the
 * status (status/evaluate.ts) through the stored event (alert_events.details, webhooks) to a
 * message's words: the check's fields are null when the region is unknown. Stored and sent as JSON,
 * so its fields and their order are a public contract (docs/alerting.md).
 */
export interface RegionReport {
  region: RegionId;
  status: RegionVerdict;
  error: string | null;
  reason: FailureReason | null;
  statusCode: number | null;
  latencyMs: number | null;
}

/**
 * The monitor-level status from its checked regions' verdicts:
 * error when the regions in error reach the quorum; otherwise degraded when
 * those in error or degraded reach it; otherwise active.
 *
 * Regions without a verdict (stale or not yet checked) count neither toward
 * failure nor toward recovery: the status is the one the known regions decide
 * whatever the unknown ones would say. When they could tip it either way,
 * the monitor keeps `previous`, so an agent going away (or coming late) never
 * fails or recovers a monitor by itself. Before any region has a verdict
 * that decides, a new monitor stays unknown.
 */
export function monitorStatusFromRegions(verdicts: readonly RegionVerdict[], rule: QuorumRule, previous: MonitorStatus): MonitorStatus {
  const quorum = quorumSize(rule, verdicts.length);
  const count = (...statuses: RegionVerdict[]) => verdicts.filter((v) => statuses.includes(v)).length;
  const [failing, troubled, unknown] = [count("error"), count("error", "degraded"), count("unknown")];
  const decide = (failingCount: number, troubledCount: number): MonitorStatus =>
    failingCount >= quorum ? "error" : troubledCount >= quorum ? "degraded" : "active";
  // Unknown regions as healthy as they could be, and as failing as they could be.
  const best = decide(failing, troubled);
  const worst = decide(failing + unknown, troubled + unknown);
  return best === worst ? best : previous;
}

const SEVERITY: Record<MonitorStatus, number> = { unknown: 0, active: 1, degraded: 2, error: 3 };

/** The worse of two statuses (error > degraded > active > unknown). */
export const worseStatus = (a: MonitorStatus, b: MonitorStatus): MonitorStatus => (SEVERITY[b] > SEVERITY[a] ? b : a);
