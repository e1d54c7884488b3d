import { Prisma, type PrismaClient } from "@vigil/db";
import { latencyBucket, maintenanceTimes } from "@vigil/domain";
import type { ResultMessage } from "@vigil/queue";
import { recordCertificates } from "../alerting/certificates";
import { recordTransitions } from "../alerting/record";
import { AGGREGATES, type AggregateTable } from "./aggregates";
import { lockMonitors, moveStatuses } from "../status/store";
import { windowsOfMonitors } from "../maintenance/repository";
import type { StatusRules } from "../status/rules";

type Tx = Prisma.TransactionClient;

export interface Stored {
  /** Results newly stored (redeliveries and results of deleted monitors are not). */
  stored: number;
  /** Events of the batch's transitions that have deliveries, to queue once committed. */
  eventIds: string[];
  /** The workspaces of the monitors that results were stored for: their overviews changed. */
  workspaceIds: string[];
}

/**
 * Stores a batch of results exactly once: a result whose id is already stored
 * (a redelivery, or a second copy in the same batch) or whose monitor was deleted
 * is skipped, and only the newly stored ones are added to the aggregates
 * (aggregates.ts) and move the statuses. The transitions they cause
 * become incidents, events and deliveries in the same transaction (the outbox),
 * so a failed batch leaves no trace and can be retried whole, and a stored one
 * told nobody twice.
 */
export async function storeResults(prisma: PrismaClient, results: ResultMessage[], rules: StatusRules): Promise<Stored> {
  const batch = [...new Map(results.map((r) => [r.id, r])).values()];
  if (batch.length === 0) return NOTHING_STORED;
  return prisma.$transaction(async (tx) => {
    // Locked first, so that everything below about a monitor is done by one batch at a time.
    const monitors = await lockMonitors(tx, [...new Set(batch.map((r) => r.monitorId))], rules);
    const inserted = await insertAndCount(tx, batch, await maintenanceOf(tx, batch));
    if (inserted.length === 0) return NOTHING_STORED;
    const transitions = await moveStatuses(tx, monitors, inserted);
    const workspaceIds = [...new Set(inserted.map((r) => monitors.get(r.monitorId)!.workspaceId))];
    const eventIds = [...(await recordTransitions(tx, transitions)), ...(await recordCertificates(tx, monitors, inserted))];
    return { stored: inserted.length, eventIds, workspaceIds };
  });
}

const NOTHING_STORED: Stored = { stored: 0, eventIds: [], workspaceIds: [] };

/**
 * Which results of the batch ran during a maintenance window of their monitor: marked on the row and
 * left out of every aggregate, so out of uptime figures. Decided here rather than when figures are
 * read: the aggregates are what figures read, and a result is judged once, at one indexed read of the
 * windows per batch, where deriving it at read time would expand every window over every day shown.
 */
async function maintenanceOf(tx: Tx, batch: readonly ResultMessage[]): Promise<Set<string>> {
  const windows = await windowsOfMonitors(tx, [...new Set(batch.map((r) => r.monitorId))]);
  if (windows.size === 0) return new Set();
  const times = batch.map((r) => new Date(r.startedAt).getTime());
  const [from, to] = [new Date(Math.min(...times)), new Date(Math.max(...times))];
  const tests = new Map([...windows].map(([monitorId, timings]) => [monitorId, maintenanceTimes(timings, from, to)]));
  return new Set(batch.filter((r) => tests.get(r.monitorId)?.(new Date(r.startedAt))).map((r) => r.id));
}

/**
 * Inserts the results that are new and adds exactly those to every aggregate (aggregates.ts), in one
 * statement (one round trip, the batch sent once): the data-modifying CTEs below take the rows the
 * insert returned, so a redelivered result is counted nowhere. Latency percentiles describe checks
 * that got an answer: failed checks are counted, not timed. Returns the newly stored results.
 */
async function insertAndCount(tx: Tx, results: ResultMessage[], inMaintenance: ReadonlySet<string>): Promise<ResultMessage[]> {
  const batch = results.map((r) => ({
    id: r.id, monitor_id: r.monitorId, region: r.region, trigger: r.trigger, started_at: r.startedAt, latency_ms: r.latencyMs,
    timing: r.timing, status_code: r.statusCode, status: r.status, error: r.error, reason: r.reason ?? null, trace_id: r.traceId ?? null, attempts: r.attempts,
    bucket: latencyBucket(r.latencyMs), in_maintenance: inMaintenance.has(r.id),
  }));
  const rows = await tx.$queryRaw<{ id: string }[]>`
    WITH batch AS MATERIALIZED (
      SELECT * FROM json_to_recordset(${JSON.stringify(batch)}::json) AS r(
        id text, monitor_id text, region text, trigger text, started_at timestamp(3), latency_ms float8, timing jsonb,
        status_code int, status text, error text, reason text, trace_id text, attempts int, bucket int, in_maintenance boolean)
    ),
    stored AS (
      INSERT INTO check_results (id, monitor_id, region, trigger, started_at, latency_ms, timing, status_code, status, error, reason, trace_id, attempts, in_maintenance)
      SELECT id, monitor_id, region, trigger, started_at, latency_ms, timing, status_code, status, error, reason, trace_id, attempts, in_maintenance FROM batch
      -- In place of a foreign key (results/delete.ts): the monitors are locked by this transaction.
      WHERE EXISTS (SELECT 1 FROM monitors m WHERE m.id = batch.monitor_id)
      ON CONFLICT (id) DO NOTHING
      RETURNING id
    ),
    fresh AS MATERIALIZED (SELECT batch.* FROM batch JOIN stored USING (id)),
    ${ADD_FRESH_TO_AGGREGATES}
    SELECT id FROM stored`;
  const ids = new Set(rows.map((row) => row.id));
  return results.filter((r) => ids.has(r.id));
}

/** One CTE per aggregate table, each adding the `fresh` results to it. */
const ADD_FRESH_TO_AGGREGATES = Prisma.raw(AGGREGATES.map((table, i) => `add_${i} AS (${addFresh(table)})`).join(",\n"));

function addFresh(table: AggregateTable): string {
  const { name, period } = table;
  const keys = ["monitor_id", ...(table.perRegion ? ["region"] : []), period];
  const keyValues = ["monitor_id", ...(table.perRegion ? ["region"] : []), `date_trunc('${period}', started_at)`];
  const groupBy = (columns: number) => Array.from({ length: columns }, (_, i) => i + 1).join(", ");
  if (table.kind === "latency") {
    return `INSERT INTO ${name} (${[...keys, "bucket", "count"].join(", ")})
      SELECT ${[...keyValues, "bucket", "count(*)"].join(", ")} FROM fresh WHERE status <> 'error' AND NOT in_maintenance GROUP BY ${groupBy(keys.length + 1)}
      ON CONFLICT (${[...keys, "bucket"].join(", ")}) DO UPDATE SET count = ${name}.count + EXCLUDED.count`;
  }
  const counted = ["successful", "degraded", "failed"];
  // A heartbeat's last ping still counts a result in maintenance: it is a ping.
  const values = ["success", "degraded", "error"].map((status) => `count(*) FILTER (WHERE status = '${status}' AND NOT in_maintenance)`);
  const sums = counted.map((column) => `${column} = ${name}.${column} + EXCLUDED.${column}`);
  if (table.lastPing) {
    counted.push("last_ping_at");
    values.push("max(started_at)");
    sums.push(`last_ping_at = GREATEST(${name}.last_ping_at, EXCLUDED.last_ping_at)`);
  }
  return `INSERT INTO ${name} (${[...keys, ...counted].join(", ")})
      SELECT ${[...keyValues, ...values].join(", ")} FROM fresh GROUP BY ${groupBy(keys.length)}
      ON CONFLICT (${keys.join(", ")}) DO UPDATE SET ${sums.join(", ")}`;
}
