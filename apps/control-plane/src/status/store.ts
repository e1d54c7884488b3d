import { Prisma, type PrismaClient } from "@vigil/db";
import { PERIODICITY_MS, monitorQuorum, type FailureReason, type MonitorKind, type MonitorStatus, type Periodicity, type RegionId } from "@vigil/domain";
import type { ResultMessage } from "@vigil/queue";
import { applyResults, newestAt, reevaluate, regionsAt, type MonitorState, type RegionCertificateJson, type RegionState, type Transition } from "./evaluate";
import { checkedRegions, type StatusRules } from "./rules";

type Tx = Prisma.TransactionClient;

/**
 * Loads monitors with their region states, locking their rows until the
 * transaction ends (in id order, so two control planes never deadlock):
 * results of one monitor are then applied by one transaction at a time, and
 * each sees what the one before it committed. That makes every transition
 * happen exactly once, whichever replica stores which batch.
 */
export function lockMonitors(tx: Tx, ids: readonly string[], rules: StatusRules): Promise<Map<string, MonitorState>> {
  return loadMonitors(tx, ids, rules, true);
}

/** `locked`: ingest's load, which locks the monitors and writes their statuses back. */
async function loadMonitors(tx: Tx | PrismaClient, ids: readonly string[], rules: StatusRules, locked = false): Promise<Map<string, MonitorState>> {
  const lock = locked ? Prisma.sql`FOR NO KEY UPDATE` : Prisma.empty;
  const monitors = await tx.$queryRaw<
    {
      id: string;
      workspace_id: string;
      name: string;
      kind: MonitorKind;
      target: string;
      regions: RegionId[];
      periodicity: Periodicity;
      status: MonitorStatus;
      alert_quorum: string;
      confirmations: number;
      recovery_confirmations: number;
    }[]
  >`
    SELECT id, workspace_id, name, kind, target, regions, periodicity, status, alert_quorum, confirmations, recovery_confirmations FROM monitors
    WHERE id = ANY(${[...ids]}::text[]) ORDER BY id ${lock}`;
  // The certificate is written back with the status (saveRegionStates), so only a locked load, which writes, reads it.
  const certificate = locked ? Prisma.sql`certificate` : Prisma.sql`NULL::jsonb AS certificate`;
  // A statement of its own, after the lock: in READ COMMITTED it sees what the transaction holding the lock before committed.
  const rows = await tx.$queryRaw<
    {
      monitor_id: string;
      region: RegionId;
      status: RegionState["status"];
      streak: number;
      last_result_at: Date;
      error: string | null;
      reason: FailureReason | null;
      status_code: number | null;
      latency_ms: number;
      certificate: RegionCertificateJson | null;
    }[]
  >`
    SELECT monitor_id, region, status, streak, last_result_at, error, reason, status_code, latency_ms, ${certificate} FROM monitor_region_statuses
    WHERE monitor_id = ANY(${monitors.map((m) => m.id)}::text[])`;
  const out = new Map<string, MonitorState>();
  for (const m of monitors) {
    out.set(m.id, {
      id: m.id,
      workspaceId: m.workspace_id,
      name: m.name,
      kind: m.kind,
      target: m.target,
      regions: checkedRegions(m.regions, rules),
      periodMs: PERIODICITY_MS[m.periodicity],
      quorum: monitorQuorum(m.alert_quorum, rules.quorum),
      confirmations: { confirmations: m.confirmations, recoveryConfirmations: m.recovery_confirmations },
      status: m.status,
      states: new Map(),
    });
  }
  for (const row of rows) {
    out.get(row.monitor_id)?.states.set(row.region, {
      status: row.status,
      streak: row.streak,
      lastResultAt: row.last_result_at,
      error: row.error,
      reason: row.reason,
      statusCode: row.status_code,
      latencyMs: row.latency_ms,
      certificate: row.certificate,
    });
  }
  return out;
}

/**
 * Moves region and monitor statuses by newly stored results and returns
 * the transitions they caused. `monitors` come from lockMonitors.
 */
export async function moveStatuses(tx: Tx, monitors: Map<string, MonitorState>, results: readonly ResultMessage[]): Promise<Transition[]> {
  const byMonitor = new Map<string, ResultMessage[]>();
  for (const result of results) byMonitor.set(result.monitorId, [...(byMonitor.get(result.monitorId) ?? []), result]);
  const before = new Map([...monitors.values()].map((m) => [m.id, m.status]));
  const transitions: Transition[] = [];
  const touched: { monitorId: string; region: RegionId; state: RegionState }[] = [];
  for (const [monitorId, own] of byMonitor) {
    const monitor = monitors.get(monitorId);
    if (!monitor) continue;
    transitions.push(...applyResults(monitor, own));
    for (const region of new Set(own.map((r) => r.region))) touched.push({ monitorId, region, state: monitor.states.get(region)! });
  }
  await saveRegionStates(tx, touched);
  await saveMonitorStatuses(tx, [...monitors.values()].filter((m) => m.status !== before.get(m.id)));
  return transitions;
}

/** Evaluates monitors again at `now` (after a change of their regions) and returns the transitions. */
export async function reevaluateStatuses(tx: Tx, ids: readonly string[], rules: StatusRules, now = new Date()): Promise<Transition[]> {
  const monitors = await lockMonitors(tx, ids, rules);
  const transitions = [...monitors.values()].flatMap((m) => reevaluate(m, now) ?? []);
  await saveMonitorStatuses(tx, transitions.map((t) => t.monitor));
  return transitions;
}

async function saveRegionStates(tx: Tx, rows: { monitorId: string; region: RegionId; state: RegionState }[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO monitor_region_statuses (monitor_id, region, status, streak, last_result_at, error, reason, status_code, latency_ms, certificate)
    SELECT * FROM unnest(
      ${rows.map((r) => r.monitorId)}::text[], ${rows.map((r) => r.region)}::text[], ${rows.map((r) => r.state.status)}::text[],
      ${rows.map((r) => r.state.streak)}::int[],
      ${rows.map((r) => r.state.lastResultAt)}::timestamp(3)[], ${rows.map((r) => r.state.error)}::text[],
      ${rows.map((r) => r.state.reason)}::text[], ${rows.map((r) => r.state.statusCode)}::int[], ${rows.map((r) => r.state.latencyMs)}::float8[],
      ${rows.map((r) => (r.state.certificate ? JSON.stringify(r.state.certificate) : null))}::jsonb[])
    ON CONFLICT (monitor_id, region) DO UPDATE SET
      status = EXCLUDED.status, streak = EXCLUDED.streak, last_result_at = EXCLUDED.last_result_at, error = EXCLUDED.error,
      reason = EXCLUDED.reason, status_code = EXCLUDED.status_code, latency_ms = EXCLUDED.latency_ms, certificate = EXCLUDED.certificate`;
}

async function saveMonitorStatuses(tx: Tx, monitors: MonitorState[]): Promise<void> {
  if (monitors.length === 0) return;
  // Raw SQL: a status change is not a configuration change, so updated_at (and with it
  // the optimistic concurrency of partial updates) must not move.
  await tx.$executeRaw`
    UPDATE monitors SET status = s.status
    FROM unnest(${monitors.map((m) => m.id)}::text[], ${monitors.map((m) => m.status)}::text[]) AS s(id, status)
    WHERE monitors.id = s.id`;
}

/** What is known of a monitor now: each checked region's status (unknown where no result arrived or the region is stale) and its newest known region's result. */
export interface CurrentRegions {
  regions: { region: RegionId; status: MonitorStatus }[];
  newest: RegionState | undefined;
}

/** CurrentRegions of each of `ids` that exists, in two statements whatever their number. */
export async function currentRegions(prisma: PrismaClient, ids: readonly string[], rules: StatusRules, now = new Date()): Promise<Map<string, CurrentRegions>> {
  const monitors = await loadMonitors(prisma, ids, rules);
  const out = new Map<string, CurrentRegions>();
  for (const monitor of monitors.values()) {
    const newest = newestAt(monitor, now);
    out.set(monitor.id, {
      regions: regionsAt(monitor, now).map((r) => ({ region: r.region, status: r.status })),
      newest: newest === undefined ? undefined : monitor.states.get(newest),
    });
  }
  return out;
}
