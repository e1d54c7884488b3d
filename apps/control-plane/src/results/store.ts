import type { Prisma, PrismaClient } from "@vigil/db";
import { latencyBucket } from "@vigil/domain";
import type { ResultMessage } from "@vigil/queue";
import { recordTransitions } from "../alerting/record";
import { lockMonitors, moveStatuses } from "../status/store";
import type { StatusRules } from "../status/rules";

type Tx = Prisma.TransactionClient;

export interface Stored {
  /** Results newly stored (redeliveries and results of deleted monitors are not). */
  stored: number;
  /** Events of the batch's transitions that have deliveries, to queue once committed. */
  eventIds: string[];
}

/**
 * Stores a batch of results exactly once: a result whose id is already stored
 * (a redelivery, or a second copy in the same batch) or whose monitor was deleted
 * is skipped, and only the newly stored ones are added to the hourly and daily
 * counts and latency buckets and move the statuses. The transitions they cause
 * become incidents, events and deliveries in the same transaction (the outbox),
 * so a failed batch leaves no trace and can be retried whole, and a stored one
 * told nobody twice.
 */
export async function storeResults(prisma: PrismaClient, results: ResultMessage[], rules: StatusRules): Promise<Stored> {
  const batch = [...new Map(results.map((r) => [r.id, r])).values()];
  if (batch.length === 0) return { stored: 0, eventIds: [] };
  return prisma.$transaction(async (tx) => {
    // Locked first, so that everything below about a monitor is done by one batch at a time.
    const monitors = await lockMonitors(tx, [...new Set(batch.map((r) => r.monitorId))], rules);
    const inserted = await insertAndCount(tx, batch);
    if (inserted.length === 0) return { stored: 0, eventIds: [] };
    const transitions = await moveStatuses(tx, monitors, inserted, rules);
    return { stored: inserted.length, eventIds: await recordTransitions(tx, transitions) };
  });
}

/**
 * Inserts the results that are new and adds exactly those to the aggregates, in one statement
 * (one round trip, the batch sent once): hourly counts feed summaries, daily ones (per UTC day)
 * the 90-day bars of status pages, and latency buckets per hour and per day the percentiles
 * (see summary.ts). Latency percentiles describe checks that got an answer: failed checks are
 * counted, not timed. Returns the newly stored results.
 */
async function insertAndCount(tx: Tx, results: ResultMessage[]): Promise<ResultMessage[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    WITH batch AS MATERIALIZED (
      SELECT * FROM unnest(
        ${results.map((r) => r.id)}::text[], ${results.map((r) => r.monitorId)}::text[], ${results.map((r) => r.region)}::text[],
        ${results.map((r) => r.trigger)}::text[], ${results.map((r) => r.startedAt)}::timestamp(3)[],
        ${results.map((r) => r.latencyMs)}::float8[], ${results.map((r) => JSON.stringify(r.timing))}::jsonb[],
        ${results.map((r) => r.statusCode)}::int[], ${results.map((r) => r.status)}::text[],
        ${results.map((r) => r.error)}::text[], ${results.map((r) => r.reason ?? null)}::text[], ${results.map((r) => r.attempts)}::int[],
        ${results.map((r) => latencyBucket(r.latencyMs))}::int[]
      ) AS r(id, monitor_id, region, trigger, started_at, latency_ms, timing, status_code, status, error, reason, attempts, bucket)
    ),
    stored AS (
      INSERT INTO check_results (id, monitor_id, region, trigger, started_at, latency_ms, timing, status_code, status, error, reason, attempts)
      SELECT id, monitor_id, region, trigger, started_at, latency_ms, timing, status_code, status, error, reason, attempts FROM batch
      WHERE EXISTS (SELECT 1 FROM monitors m WHERE m.id = batch.monitor_id)
      ON CONFLICT (id) DO NOTHING
      RETURNING id
    ),
    fresh AS MATERIALIZED (SELECT batch.* FROM batch JOIN stored USING (id)),
    hourly AS (
      INSERT INTO result_counts (monitor_id, region, hour, successful, degraded, failed, last_ping_at)
      SELECT monitor_id, region, date_trunc('hour', started_at),
        count(*) FILTER (WHERE status = 'success'), count(*) FILTER (WHERE status = 'degraded'), count(*) FILTER (WHERE status = 'error'),
        max(started_at)
      FROM fresh GROUP BY 1, 2, 3
      ON CONFLICT (monitor_id, region, hour) DO UPDATE SET
        successful = result_counts.successful + EXCLUDED.successful,
        degraded = result_counts.degraded + EXCLUDED.degraded,
        failed = result_counts.failed + EXCLUDED.failed,
        last_ping_at = GREATEST(result_counts.last_ping_at, EXCLUDED.last_ping_at)
    ),
    daily AS (
      INSERT INTO daily_result_counts (monitor_id, region, day, successful, degraded, failed)
      SELECT monitor_id, region, date_trunc('day', started_at),
        count(*) FILTER (WHERE status = 'success'), count(*) FILTER (WHERE status = 'degraded'), count(*) FILTER (WHERE status = 'error')
      FROM fresh GROUP BY 1, 2, 3
      ON CONFLICT (monitor_id, region, day) DO UPDATE SET
        successful = daily_result_counts.successful + EXCLUDED.successful,
        degraded = daily_result_counts.degraded + EXCLUDED.degraded,
        failed = daily_result_counts.failed + EXCLUDED.failed
    ),
    hourly_latency AS (
      INSERT INTO latency_buckets (monitor_id, region, hour, bucket, count)
      SELECT monitor_id, region, date_trunc('hour', started_at), bucket, count(*) FROM fresh WHERE status <> 'error' GROUP BY 1, 2, 3, 4
      ON CONFLICT (monitor_id, region, hour, bucket) DO UPDATE SET count = latency_buckets.count + EXCLUDED.count
    ),
    daily_latency AS (
      INSERT INTO daily_latency_buckets (monitor_id, region, day, bucket, count)
      SELECT monitor_id, region, date_trunc('day', started_at), bucket, count(*) FROM fresh WHERE status <> 'error' GROUP BY 1, 2, 3, 4
      ON CONFLICT (monitor_id, region, day, bucket) DO UPDATE SET count = daily_latency_buckets.count + EXCLUDED.count
    )
    SELECT id FROM stored`;
  const ids = new Set(rows.map((row) => row.id));
  return results.filter((r) => ids.has(r.id));
}
