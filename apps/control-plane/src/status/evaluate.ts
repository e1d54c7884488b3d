import {
  isStale,
  monitorStatusFromRegions,
  nextRegionCount,
  type Confirmations,
  type CertificateInfo,
  type FailureReason,
  type StoredMonitorKind,
  type MonitorStatus,
  type QuorumRule,
  type RegionId,
  type RegionReport,
  type RegionVerdict,
} from "@vigil/domain";
import type { ResultMessage } from "@vigil/queue";

/** A region's confirmed status (nextRegionCount) and its newest result, as far as status and messages need it. */
export interface RegionState {
  status: "active" | "degraded" | "error";
  /** The newest checks in a row not yet confirmed (they disagree with `status`). */
  streak: number;
  lastResultAt: Date;
  error: string | null;
  reason: FailureReason | null;
  statusCode: number | null;
  latencyMs: number;
  /** The newest certificate the region saw (GetMonitorStatus), with the time of its check. */
  certificate: RegionCertificateJson | null;
}

/** A region's certificate as stored with its status. */
export type RegionCertificateJson = CertificateInfo & { checkedAt: string };

/** What the status needs of a monitor; `status` moves as results are applied. */
export interface MonitorState {
  id: string;
  workspaceId: string;
  name: string;
  kind: StoredMonitorKind;
  target: string;
  /** Its checked regions (see checkedRegions). */
  regions: readonly RegionId[];
  periodMs: number;
  /** Its own alertQuorum, else the deployment's ALERT_QUORUM. */
  quorum: QuorumRule;
  /** Its confirmations and recoveryConfirmations. */
  confirmations: Confirmations;
  status: MonitorStatus;
  /** Every region's newest result, checked or not (a region may be checked again later). */
  states: Map<RegionId, RegionState>;
}

/** A change of a monitor-level status. */
export interface Transition {
  monitor: MonitorState;
  from: MonitorStatus;
  to: MonitorStatus;
  /** The time the status changed: the start of the check that changed it (or now, after a configuration change). */
  at: Date;
  /** Each checked region as it stood then, in the monitor's order. */
  regions: RegionReport[];
  /** The checked region whose check is the newest then, if any region is known (a recovery's message leads with it). */
  newest: RegionId | undefined;
  /** Why a monitor without regions (a heartbeat) failed, where no check's error says it. */
  cause?: { error: string; reason: FailureReason };
}

/** A checked region's verdict at `asOf`: a stale region (its agents are gone) is unknown. */
function verdictAt(monitor: MonitorState, region: RegionId, asOf: Date): RegionVerdict {
  const state = monitor.states.get(region);
  return !state || isStale(state.lastResultAt, asOf, monitor.periodMs) ? "unknown" : state.status;
}

/** What is known of each checked region at `asOf`. */
export function regionsAt(monitor: MonitorState, asOf: Date): RegionReport[] {
  return monitor.regions.map((region) => {
    const status = verdictAt(monitor, region, asOf);
    const state = status === "unknown" ? undefined : monitor.states.get(region);
    return {
      region,
      status,
      error: state?.error ?? null,
      reason: state?.reason ?? null,
      statusCode: state?.statusCode ?? null,
      latencyMs: state?.latencyMs ?? null,
    };
  });
}

/** Of the regions known at `asOf`, the one checked last (the first of them on a tie). */
export function newestAt(monitor: MonitorState, asOf: Date): RegionId | undefined {
  let newest: { region: RegionId; at: number } | undefined;
  for (const region of monitor.regions) {
    const state = monitor.states.get(region);
    if (state && verdictAt(monitor, region, asOf) !== "unknown" && (!newest || state.lastResultAt.getTime() > newest.at)) {
      newest = { region, at: state.lastResultAt.getTime() };
    }
  }
  return newest?.region;
}

function evaluateAt(monitor: MonitorState, asOf: Date): Transition | null {
  // Verdicts alone first: this runs for every stored result, and most change nothing.
  const to = monitorStatusFromRegions(
    monitor.regions.map((region) => verdictAt(monitor, region, asOf)),
    monitor.quorum,
    monitor.status,
  );
  if (to === monitor.status) return null;
  const transition = { monitor, from: monitor.status, to, at: asOf, regions: regionsAt(monitor, asOf), newest: newestAt(monitor, asOf) };
  monitor.status = to;
  return transition;
}

/**
 * Applies a monitor's new results in the order their checks started,
 * evaluating its status after each, as if each had arrived alone and on
 * time: the transitions are the same whether results come one by one, in a
 * batch of several regions, or late from a backlog. Staleness is judged at
 * each result's own time, never at the time it is processed. A result older
 * than its region's newest is kept for summaries but moves nothing (nor
 * counts toward confirmations). Each result is applied once: the caller
 * passes only results newly stored (a redelivery is not), so a region's
 * count of consecutive checks never counts one twice.
 */
export function applyResults(monitor: MonitorState, results: readonly ResultMessage[]): Transition[] {
  const transitions: Transition[] = [];
  const ordered = [...results].sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  for (const result of ordered) {
    const at = new Date(result.startedAt);
    const known = monitor.states.get(result.region);
    if (known && known.lastResultAt > at) continue;
    monitor.states.set(result.region, {
      ...nextRegionCount(known, result.status, monitor.confirmations),
      lastResultAt: at,
      error: result.error,
      reason: result.reason ?? null,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      certificate: certificateAfter(known, result),
    });
    if (!monitor.regions.includes(result.region)) continue;
    const transition = evaluateAt(monitor, at);
    if (transition) transitions.push(transition);
  }
  return transitions;
}

/**
 * A region keeps the newest certificate seen: a check that failed without a handshake says nothing of
 * it and leaves it; one that succeeded without one (not HTTPS) clears it.
 */
function certificateAfter(known: RegionState | undefined, result: ResultMessage): RegionCertificateJson | null {
  if (result.certificate) return { ...result.certificate, checkedAt: result.startedAt };
  return result.status === "error" ? (known?.certificate ?? null) : null;
}

/** Evaluates a monitor again without new results: after its regions, its quorum or the deployment's changed. */
export function reevaluate(monitor: MonitorState, asOf: Date): Transition | null {
  return evaluateAt(monitor, asOf);
}
