import { Prisma, type PrismaClient } from "@vigil/db";
import { latencyBucket } from "@vigil/domain";
import type { ResultMessage } from "@vigil/queue";
import { recordTransitions } from "../alerting/record";
import { lockMonitors, moveStatuses } from "../status/store";
import type { StatusRules } from "../status/rules";

type Tx = Prisma.TransactionClient;

const hourOf = (iso: string) => {
  const d = new Date(iso);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
};
const dayOf = (iso: string) => `${iso.slice(0, 10)}T00:00:00.000Z`;

/** Adds up values under a key, so each aggregate row is written once per batch. */
function tally<V>(entries: Iterable<[string, V]>, add: (into: V, value: V) => V): Map<string, V> {
  const out = new Map<string, V>();
  for (const [key, value] of entries) {
    const prior = out.get(key);
    out.set(key, prior === undefined ? value : add(prior, value));
  }
  return out;
}

export interface Stored {
  /** Results newly stored (redeliveries and results of deleted monitors are not). */
  stored: number;
  /** Events of the batch's transitions that have deliveries, to queue once committed. */
  eventIds: string[];
}

/**
 * Stores a batch of results exactly once: a result whose id is already stored
 * (a redelivery) or whose monitor was deleted is skipped, and only the newly
 * stored ones are added to the hourly and daily counts and latency buckets and move the
 * statuses. The transitions they cause become incidents, events and
 * deliveries in the same transaction (the outbox), so a failed batch leaves
 * no trace and can be retried whole, and a stored one told nobody twice.
 */
export async function storeResults(prisma: PrismaClient, results: ResultMessage[], rules: StatusRules): Promise<Stored> {
  if (results.length === 0) return { stored: 0, eventIds: [] };
  return prisma.$transaction(async (tx) => {
    // Locked first, so that everything below about a monitor is done by one batch at a time.
    const monitors = await lockMonitors(tx, [...new Set(results.map((r) => r.monitorId))], rules);
    const inserted = await insertNew(tx, results);
    if (inserted.length === 0) return { stored: 0, eventIds: [] };
    await addCounts(tx, inserted);
    await addLatencies(tx, inserted);
    const transitions = await moveStatuses(tx, monitors, inserted, rules);
    return { stored: inserted.length, eventIds: await recordTransitions(tx, transitions) };
  });
}

async function insertNew(tx: Tx, results: ResultMessage[]): Promise<ResultMessage[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO check_results (id, monitor_id, region, trigger, started_at, latency_ms, timing, status_code, status, error, reason, attempts)
    SELECT r.* FROM unnest(
      ${results.map((r) => r.id)}::text[], ${results.map((r) => r.monitorId)}::text[], ${results.map((r) => r.region)}::text[],
      ${results.map((r) => r.trigger)}::text[], ${results.map((r) => r.startedAt)}::timestamp(3)[],
      ${results.map((r) => r.latencyMs)}::float8[], ${results.map((r) => JSON.stringify(r.timing))}::jsonb[],
      ${results.map((r) => r.statusCode)}::int[], ${results.map((r) => r.status)}::text[],
      ${results.map((r) => r.error)}::text[], ${results.map((r) => r.reason ?? null)}::text[], ${results.map((r) => r.attempts)}::int[]
    ) AS r(id, monitor_id, region, trigger, started_at, latency_ms, timing, status_code, status, error, reason, attempts)
    WHERE EXISTS (SELECT 1 FROM monitors m WHERE m.id = r.monitor_id)
    ON CONFLICT (id) DO NOTHING
    RETURNING id`;
  const ids = new Set(rows.map((row) => row.id));
  return results.filter((r) => ids.has(r.id));
}

/** A batch's results counted by monitor, region and the period `period` gives their start (an hour or a UTC day). */
function countsBy(results: ResultMessage[], period: (iso: string) => string) {
  return [
    ...tally(
      results.map((r) => [
        `${r.monitorId}|${r.region}|${period(r.startedAt)}`,
        {
          successful: r.status === "success" ? 1 : 0,
          degraded: r.status === "degraded" ? 1 : 0,
          failed: r.status === "error" ? 1 : 0,
          lastPingAt: r.startedAt,
        },
      ]),
      (a, b) => ({
        successful: a.successful + b.successful,
        degraded: a.degraded + b.degraded,
        failed: a.failed + b.failed,
        lastPingAt: a.lastPingAt > b.lastPingAt ? a.lastPingAt : b.lastPingAt,
      }),
    ),
  ].map(([key, v]) => ({ key: key.split("|"), ...v }));
}

/** Hourly counts feed summaries; daily ones (per UTC day) feed the 90-day bars of status pages. */
async function addCounts(tx: Tx, results: ResultMessage[]): Promise<void> {
  const rows = countsBy(results, hourOf);
  await tx.$executeRaw`
    INSERT INTO result_counts (monitor_id, region, hour, successful, degraded, failed, last_ping_at)
    SELECT * FROM unnest(
      ${rows.map((r) => r.key[0])}::text[], ${rows.map((r) => r.key[1])}::text[], ${rows.map((r) => r.key[2])}::timestamp(3)[],
      ${rows.map((r) => r.successful)}::int[], ${rows.map((r) => r.degraded)}::int[], ${rows.map((r) => r.failed)}::int[],
      ${rows.map((r) => r.lastPingAt)}::timestamp(3)[])
    ON CONFLICT (monitor_id, region, hour) DO UPDATE SET
      successful = result_counts.successful + EXCLUDED.successful,
      degraded = result_counts.degraded + EXCLUDED.degraded,
      failed = result_counts.failed + EXCLUDED.failed,
      last_ping_at = GREATEST(result_counts.last_ping_at, EXCLUDED.last_ping_at)`;
  const days = countsBy(results, dayOf);
  await tx.$executeRaw`
    INSERT INTO daily_result_counts (monitor_id, region, day, successful, degraded, failed)
    SELECT * FROM unnest(
      ${days.map((r) => r.key[0])}::text[], ${days.map((r) => r.key[1])}::text[], ${days.map((r) => r.key[2])}::timestamp(3)[],
      ${days.map((r) => r.successful)}::int[], ${days.map((r) => r.degraded)}::int[], ${days.map((r) => r.failed)}::int[])
    ON CONFLICT (monitor_id, region, day) DO UPDATE SET
      successful = daily_result_counts.successful + EXCLUDED.successful,
      degraded = daily_result_counts.degraded + EXCLUDED.degraded,
      failed = daily_result_counts.failed + EXCLUDED.failed`;
}

/**
 * Latency percentiles describe checks that got an answer: failed checks are
 * counted, not timed. Buckets are kept per hour and per day (see summary.ts).
 */
async function addLatencies(tx: Tx, results: ResultMessage[]): Promise<void> {
  const answered = results.filter((r) => r.status !== "error");
  if (answered.length === 0) return;
  await addBuckets(tx, answered, "latency_buckets", "hour", hourOf);
  await addBuckets(tx, answered, "daily_latency_buckets", "day", dayOf);
}

/** Adds each result to its latency bucket of the period `period` gives its start (an hour or a UTC day). */
async function addBuckets(
  tx: Tx,
  answered: ResultMessage[],
  table: "latency_buckets" | "daily_latency_buckets",
  column: "hour" | "day",
  period: (iso: string) => string,
): Promise<void> {
  const rows = [
    ...tally(
      answered.map((r) => [`${r.monitorId}|${r.region}|${period(r.startedAt)}|${latencyBucket(r.latencyMs)}`, 1]),
      (a, b) => a + b,
    ),
  ].map(([key, count]) => ({ key: key.split("|"), count }));
  const [into, at] = [Prisma.raw(table), Prisma.raw(column)];
  await tx.$executeRaw`
    INSERT INTO ${into} (monitor_id, region, ${at}, bucket, count)
    SELECT * FROM unnest(
      ${rows.map((r) => r.key[0])}::text[], ${rows.map((r) => r.key[1])}::text[], ${rows.map((r) => r.key[2])}::timestamp(3)[],
      ${rows.map((r) => Number(r.key[3]))}::int[], ${rows.map((r) => r.count)}::int[])
    ON CONFLICT (monitor_id, region, ${at}, bucket) DO UPDATE SET count = ${into}.count + EXCLUDED.count`;
}
