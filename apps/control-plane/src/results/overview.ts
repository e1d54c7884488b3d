import { Prisma, type PrismaClient } from "@vigil/db";
import { LRUCache } from "lru-cache";
import { OVERVIEW_HOURS, bucketLatency, uptimePercent } from "@vigil/domain";
import { ALL_REGION_LATENCY_BUCKETS, ALL_REGION_RESULT_COUNTS, aggregateRows } from "./aggregates";
import { rangeStart } from "./summary";

const HOUR = 3_600_000;

export interface OverviewHour {
  start: Date;
  count: number;
  failed: number;
  /** Nearest-rank median latency of the answered checks, from the hourly latency buckets; 0 without any. */
  p50: number;
}

export interface MonitorHistory {
  /** OVERVIEW_HOURS hours, oldest first, the current one last, empty ones included. */
  hours: OverviewHour[];
  uptime1d: number | null;
  uptime7d: number | null;
}

/**
 * The recent history of many monitors at once, from the roll-ups across regions, in three statements
 * whatever the number of monitors: uptimes over 1 and 7 days, hourly counts, and hourly medians
 * (computed in the database, so that one row per monitor and hour comes back, not one per latency bucket).
 */
export async function monitorHistories(prisma: PrismaClient, ids: readonly string[], now = new Date()): Promise<Map<string, MonitorHistory>> {
  const firstHour = Math.floor(now.getTime() / HOUR) - (OVERVIEW_HOURS - 1);
  const from = new Date(firstHour * HOUR);
  const dayFrom = rangeStart("1d", now);
  const of = Prisma.sql`monitor_id = ANY(${[...ids]}::text[])`;
  const [uptimes, counts, medians] = await Promise.all([
    prisma.$queryRaw<UptimeRow[]>`
      SELECT monitor_id,
        sum(successful)::float8 AS successful, sum(degraded)::float8 AS degraded, sum(failed)::float8 AS failed,
        (sum(successful) FILTER (WHERE hour >= ${dayFrom}))::float8 AS day_successful,
        (sum(degraded) FILTER (WHERE hour >= ${dayFrom}))::float8 AS day_degraded,
        (sum(failed) FILTER (WHERE hour >= ${dayFrom}))::float8 AS day_failed
      FROM (${aggregateRows(ALL_REGION_RESULT_COUNTS, Prisma.sql`monitor_id, hour, successful, degraded, failed`, of, rangeStart("7d", now))}) AS hours
      GROUP BY monitor_id`,
    prisma.$queryRaw<{ monitor_id: string; hour: Date; count: number; failed: number }[]>(
      aggregateRows(ALL_REGION_RESULT_COUNTS, Prisma.sql`monitor_id, hour, (successful + degraded + failed)::float8 AS count, failed::float8 AS failed`, of, from),
    ),
    prisma.$queryRaw<{ monitor_id: string; hour: Date; bucket: number }[]>`
      SELECT monitor_id, hour, min(bucket) FILTER (WHERE running >= ceil(total / 2.0)) AS bucket FROM (
        SELECT monitor_id, hour, bucket,
          sum(count) OVER (PARTITION BY monitor_id, hour ORDER BY bucket) AS running,
          sum(count) OVER (PARTITION BY monitor_id, hour) AS total
        FROM (${aggregateRows(ALL_REGION_LATENCY_BUCKETS, Prisma.sql`monitor_id, hour, bucket, count`, of, from)}) AS buckets
      ) AS ranked
      GROUP BY monitor_id, hour`,
  ]);
  const keyOf = (monitorId: string, hour: Date) => `${monitorId}|${hour.getTime()}`;
  const hourCounts = new Map(counts.map((c) => [keyOf(c.monitor_id, c.hour), c]));
  const hourMedians = new Map(medians.map((m) => [keyOf(m.monitor_id, m.hour), Math.round(bucketLatency(m.bucket))]));
  const uptimeOf = new Map(uptimes.map((u) => [u.monitor_id, u]));
  const out = new Map<string, MonitorHistory>();
  for (const id of ids) {
    const u = uptimeOf.get(id);
    out.set(id, {
      hours: Array.from({ length: OVERVIEW_HOURS }, (_, i) => {
        const start = new Date((firstHour + i) * HOUR);
        const c = hourCounts.get(keyOf(id, start));
        return { start, count: c?.count ?? 0, failed: c?.failed ?? 0, p50: hourMedians.get(keyOf(id, start)) ?? 0 };
      }),
      uptime1d: u ? uptimePercent({ successful: u.day_successful ?? 0, degraded: u.day_degraded ?? 0, failed: u.day_failed ?? 0 }) : null,
      uptime7d: u ? uptimePercent({ successful: u.successful, degraded: u.degraded, failed: u.failed }) : null,
    });
  }
  return out;
}

interface UptimeRow {
  monitor_id: string;
  successful: number;
  degraded: number;
  failed: number;
  day_successful: number | null;
  day_degraded: number | null;
  day_failed: number | null;
}

const MINUTE = 60_000;

/**
 * What an overview of a workspace depends on: which monitors it has (their number and a checksum of their ids),
 * its newest configuration change, the start of its newest result (statuses, uptimes and sparklines move with
 * results), and the minute (a region turns stale, an hour rolls over, without any write).
 */
export interface OverviewState {
  count: number;
  idSum: number;
  /** Milliseconds since the epoch; 0 without any. */
  changed: number;
  checked: number;
  minute: number;
}

/** The state of a workspace's overview now, in one statement. */
export async function overviewState(prisma: PrismaClient, workspaceId: string, now = new Date()): Promise<OverviewState> {
  const [row] = await prisma.$queryRaw<{ count: number; id_sum: number | null; changed: Date | null; checked: Date | null }[]>`
    SELECT count(*)::float8 AS count, sum(hashtext(id))::float8 AS id_sum, max(updated_at) AS changed,
      (SELECT max(s.last_result_at) FROM monitor_region_statuses s JOIN monitors m ON m.id = s.monitor_id WHERE m.workspace_id = ${workspaceId}) AS checked
    FROM monitors WHERE workspace_id = ${workspaceId}`;
  return {
    count: row?.count ?? 0,
    idSum: row?.id_sum ?? 0,
    changed: row?.changed?.getTime() ?? 0,
    checked: row?.checked?.getTime() ?? 0,
    minute: Math.floor(now.getTime() / MINUTE),
  };
}

const FIELDS = ["count", "idSum", "changed", "checked", "minute"] as const;

/** The state as the change token the API answers: opaque to clients. */
export const changeTokenOf = (state: OverviewState): string => FIELDS.map((field) => state[field].toString(36)).join(".");

/** The state a change token stands for; undefined for anything that is not one. */
export function stateOfToken(token: string): OverviewState | undefined {
  const parts = token.split(".").map((part) => (/^-?[0-9a-z]{1,12}$/.test(part) ? parseInt(part, 36) : NaN));
  if (parts.length !== FIELDS.length || parts.some(Number.isNaN)) return undefined;
  return Object.fromEntries(FIELDS.map((field, i) => [field, parts[i]])) as unknown as OverviewState;
}

/**
 * How long an answer of ListMonitorOverviews is shared by the calls that ask the same of the same workspace: the
 * consoles open on one workspace poll it every half second, and compute it once between them (docs/benchmarks.md,
 * "Console overview"). Changes show this much later at most.
 */
export const OVERVIEW_ANSWER_MS = 250;

/** Answers computed once for every call with the same key within `ttlMs`; a failed one is not kept. */
export class SharedAnswers<T> {
  private readonly kept: LRUCache<string, Promise<T>>;

  constructor(ttlMs: number) {
    this.kept = new LRUCache({ max: 1_000, ttl: ttlMs });
  }

  answer(key: string, compute: () => Promise<T>): Promise<T> {
    const kept = this.kept.get(key);
    if (kept) return kept;
    const answer = compute();
    this.kept.set(key, answer);
    answer.catch(() => this.kept.delete(key));
    return answer;
  }
}
