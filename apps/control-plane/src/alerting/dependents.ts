import type { Prisma } from "@vigil/db";
import type { DependencyState, FailureReason, MonitorStatus, RegionId, RegionReport, StoredMonitorKind } from "@vigil/domain";

type Tx = Prisma.TransactionClient;

/** Each monitor's dependsOn, for absorbingIncident. */
export type DependencyGraph = Map<string, Omit<DependencyState, "openIncident">>;

/**
 * The dependsOn of those of `ids` that depend on others and of every monitor they depend on, transitively (empty
 * when none of `ids` has dependencies). Those dependencies' rows are then held (FOR SHARE) until the transaction
 * ends, so that their incidents are read as they stand: a batch storing a dependency's results (another lane, or
 * another control plane, holding its row from lockMonitors) is waited for, and a failure it opened an incident for
 * is seen; and a later batch, which may resolve that incident, waits until what it absorbs here is written, and
 * reads it after. Two batches each waiting on the other's monitors this way is a deadlock PostgreSQL ends by failing
 * one, which the consumer retries.
 */
export async function loadDependencies(tx: Tx, ids: readonly string[]): Promise<DependencyGraph> {
  const rows = await tx.$queryRaw<{ id: string; depends_on: string[] }[]>`
    WITH RECURSIVE up(id) AS (
      SELECT monitor_id FROM monitor_dependencies WHERE monitor_id = ANY(${[...ids]}::text[])
      UNION SELECT d.depends_on_id FROM monitor_dependencies d JOIN up ON d.monitor_id = up.id
    )
    SELECT m.id,
      ARRAY(SELECT d.depends_on_id FROM monitor_dependencies d WHERE d.monitor_id = m.id ORDER BY d.position) AS depends_on
    FROM monitors m WHERE m.id IN (SELECT id FROM up)`;
  const graph: DependencyGraph = new Map(rows.map((row) => [row.id, { dependsOn: row.depends_on }]));
  const dependencies = rows.filter((row) => !ids.includes(row.id)).map((row) => row.id);
  if (dependencies.length > 0) await tx.$queryRaw`SELECT id FROM monitors WHERE id = ANY(${dependencies}::text[]) ORDER BY id FOR SHARE`;
  return graph;
}

/**
 * Of those of `ids` that depend on others, the monitor at the top of their dependencies (the least id of the tops
 * when there are several), which names their tree; monitors without dependencies are their own (left out).
 */
export async function dependencyTrees(db: Pick<Tx, "$queryRaw">, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.$queryRaw<{ start: string; top: string }[]>`
    WITH RECURSIVE up(start, id) AS (
      SELECT monitor_id, monitor_id FROM monitor_dependencies WHERE monitor_id = ANY(${[...ids]}::text[])
      UNION SELECT up.start, d.depends_on_id FROM monitor_dependencies d JOIN up ON d.monitor_id = up.id
    )
    SELECT start, min(id) AS top FROM up
    WHERE NOT EXISTS (SELECT 1 FROM monitor_dependencies d WHERE d.monitor_id = up.id)
    GROUP BY start`;
  return new Map(rows.map((row) => [row.start, row.top]));
}

/** A failure an open incident of a dependency absorbed: what its alert would have said. */
export interface AbsorbedFailure {
  monitor: { id: string; workspaceId: string; name: string; kind: StoredMonitorKind; target: string };
  status: MonitorStatus;
  regions: RegionReport[];
  newest: RegionId | undefined;
  /** What failed a monitor without regions (a heartbeat's silence). */
  cause?: { error: string; reason: FailureReason };
}

/** Records failures under the incidents that absorbed them; a monitor absorbed again keeps its first time, with its newest failure. */
export async function saveAlsoAffected(tx: Tx, rows: readonly { incidentId: string; at: Date; failure: AbsorbedFailure }[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO incident_also_affected (incident_id, monitor_id, affected_at, details)
    SELECT * FROM unnest(
      ${rows.map((r) => r.incidentId)}::text[], ${rows.map((r) => r.failure.monitor.id)}::text[],
      ${rows.map((r) => r.at)}::timestamp(3)[], ${rows.map((r) => JSON.stringify(r.failure))}::jsonb[])
    ON CONFLICT (incident_id, monitor_id) DO UPDATE SET details = EXCLUDED.details`;
}

/**
 * The monitors the incidents `incidentIds` (resolved in this transaction) absorbed failures of, with their
 * status now and their last absorbed failure; read after the resolutions were written, so that none absorbed by
 * a transaction this one waited for is missed.
 */
export async function absorbedBy(tx: Tx, incidentIds: readonly string[]): Promise<(AbsorbedFailure & { incidentId: string })[]> {
  if (incidentIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ incident_id: string; status: MonitorStatus; details: AbsorbedFailure }[]>`
    SELECT a.incident_id, m.status, a.details FROM incident_also_affected a JOIN monitors m ON m.id = a.monitor_id
    WHERE a.incident_id = ANY(${[...incidentIds]}::text[]) ORDER BY a.affected_at, a.monitor_id`;
  return rows.map((row) => ({ ...row.details, status: row.status, incidentId: row.incident_id }));
}

/** The monitors each of `incidentIds` absorbed failures of, in the order they failed. */
export async function alsoAffectedOf(db: Pick<Tx, "incidentAlsoAffected">, incidentIds: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await db.incidentAlsoAffected.findMany({
    where: { incidentId: { in: [...incidentIds] } },
    orderBy: [{ affectedAt: "asc" }, { monitorId: "asc" }],
    select: { incidentId: true, monitorId: true },
  });
  const out = new Map<string, string[]>();
  for (const row of rows) out.set(row.incidentId, [...(out.get(row.incidentId) ?? []), row.monitorId]);
  return out;
}
