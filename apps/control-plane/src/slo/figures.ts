import { Prisma, type PrismaClient } from "@vigil/db";
import {
  BURN_RATE_WINDOWS_MS,
  SLO,
  budgetRemainingPercent,
  burnRate,
  latencyBucket,
  sliPercent,
  type Objectives,
  type SliCounts,
} from "@vigil/domain";
import { ALL_REGION_DAILY_LATENCY_BUCKETS, ALL_REGION_DAILY_RESULT_COUNTS, aggregateRows } from "../results/aggregates";

const DAY_MS = 86_400_000;

/** The client or a transaction's: a sweep reads inside its transaction (PGlite has one connection, which the transaction holds). */
type Reader = Pick<PrismaClient, "$queryRaw">;
const HOUR_MS = 3_600_000;

/** What a window holds of a monitor's checks for each of its objectives. */
export interface WindowCounts {
  availability: SliCounts;
  latency: SliCounts;
}

/** The first UTC day of the SLO window ending at `now`: today and the SLO.windowDays - 1 days before it. */
export const sloWindowStart = (now: Date): Date => new Date((Math.floor(now.getTime() / DAY_MS) - (SLO.windowDays - 1)) * DAY_MS);

/**
 * The SLO window's counts from the daily roll-ups across regions (kept DAILY_AGGREGATE_RETENTION_DAYS, far longer than the
 * window). Latency counts the answered checks whose bucket is at or under the threshold's: within the bucket's width (2 %) of it.
 */
export async function windowCounts(prisma: Reader, monitorId: string, thresholdMs: number, now: Date): Promise<WindowCounts> {
  const from = sloWindowStart(now);
  const ofMonitor = Prisma.sql`monitor_id = ${monitorId}`;
  const [[counts], [latency]] = await Promise.all([
    prisma.$queryRaw<{ good: number | null; total: number | null }[]>(
      aggregateRows(ALL_REGION_DAILY_RESULT_COUNTS, Prisma.sql`sum(successful + degraded)::float8 AS good, sum(successful + degraded + failed)::float8 AS total`, ofMonitor, from),
    ),
    prisma.$queryRaw<{ good: number | null; total: number | null }[]>(
      aggregateRows(
        ALL_REGION_DAILY_LATENCY_BUCKETS,
        Prisma.sql`(sum(count) FILTER (WHERE bucket <= ${latencyBucket(thresholdMs)}))::float8 AS good, sum(count)::float8 AS total`,
        ofMonitor,
        from,
      ),
    ),
  ]);
  return {
    availability: { good: counts?.good ?? 0, total: counts?.total ?? 0 },
    latency: { good: latency?.good ?? 0, total: latency?.total ?? 0 },
  };
}

/**
 * The counts of the burn-rate windows (BURN_RATE_WINDOWS_MS, the longest 6 hours) from the raw results, exactly, in one
 * statement: every window is a FILTER over the longest one's rows. Results of checks in maintenance count in none, as in
 * no aggregate.
 */
export async function burnWindowCounts(prisma: Reader, monitorId: string, thresholdMs: number, now: Date): Promise<Map<number, WindowCounts>> {
  const since = (windowMs: number) => new Date(now.getTime() - windowMs);
  const columns = BURN_RATE_WINDOWS_MS.map(
    (windowMs, i) => Prisma.sql`
      count(*) FILTER (WHERE started_at >= ${since(windowMs)})::float8 AS ${Prisma.raw(`total_${i}`)},
      count(*) FILTER (WHERE started_at >= ${since(windowMs)} AND status <> 'error')::float8 AS ${Prisma.raw(`up_${i}`)},
      count(*) FILTER (WHERE started_at >= ${since(windowMs)} AND status <> 'error' AND latency_ms <= ${thresholdMs})::float8 AS ${Prisma.raw(`fast_${i}`)}`,
  );
  const [row] = await prisma.$queryRaw<Record<string, number>[]>`
    SELECT ${Prisma.join(columns)} FROM check_results
    WHERE monitor_id = ${monitorId} AND started_at >= ${since(BURN_RATE_WINDOWS_MS[0]!)} AND started_at <= ${now} AND NOT in_maintenance`;
  return new Map(
    BURN_RATE_WINDOWS_MS.map((windowMs, i) => {
      const total = row?.[`total_${i}`] ?? 0;
      const up = row?.[`up_${i}`] ?? 0;
      return [windowMs, { availability: { good: up, total }, latency: { good: row?.[`fast_${i}`] ?? 0, total: up } }];
    }),
  );
}

/** One objective's figures over the SLO window and its burn rates. */
export interface SloFigures {
  objective: number;
  thresholdMs: number;
  counts: SliCounts;
  actual: number | null;
  budgetRemaining: number | null;
  burnRate1h: number | null;
  burnRate6h: number | null;
}

export interface MonitorSlo {
  availability: SloFigures | null;
  latency: SloFigures | null;
}

/** The figures of a monitor's objectives at `now`; null for an objective it does not have. */
export async function monitorSlo(prisma: PrismaClient, monitorId: string, objectives: Objectives, now: Date): Promise<MonitorSlo> {
  const hasAvailability = objectives.availabilityObjective > 0;
  const hasLatency = objectives.latencyObjectiveMs > 0;
  if (!hasAvailability && !hasLatency) return { availability: null, latency: null };
  const [window, burns] = await Promise.all([
    windowCounts(prisma, monitorId, objectives.latencyObjectiveMs, now),
    burnWindowCounts(prisma, monitorId, objectives.latencyObjectiveMs, now),
  ]);
  const figures = (kind: keyof WindowCounts, objective: number, thresholdMs: number): SloFigures => ({
    objective,
    thresholdMs,
    counts: window[kind],
    actual: sliPercent(window[kind]),
    budgetRemaining: budgetRemainingPercent(objective, window[kind]),
    burnRate1h: burnRate(objective, burns.get(HOUR_MS)![kind]),
    burnRate6h: burnRate(objective, burns.get(6 * HOUR_MS)![kind]),
  });
  return {
    availability: hasAvailability ? figures("availability", objectives.availabilityObjective, 0) : null,
    latency: hasLatency ? figures("latency", objectives.latencyObjectivePercent, objectives.latencyObjectiveMs) : null,
  };
}
