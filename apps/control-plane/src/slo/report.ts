import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Prisma, type PrismaClient } from "@vigil/db";
import {
  PERCENTILE_RELATIVE_ERROR,
  REPORT_PERCENTILES,
  coveredMs,
  percentilesFromBuckets,
  regionCodec,
  uptimePercent,
  type DayCounts,
  type RegionId,
  type ReportMonth,
} from "@vigil/domain";
import type { GetMonitorReportResponseSchema, ReportFiguresSchema } from "@vigil/proto";
import type { GetStatusPageReportResponseSchema } from "@vigil/proto/status-page";
import {
  ALL_REGION_DAILY_LATENCY_BUCKETS,
  ALL_REGION_DAILY_RESULT_COUNTS,
  DAILY_LATENCY_BUCKETS,
  DAILY_RESULT_COUNTS,
  aggregateRows,
} from "../results/aggregates";

/** The rows a month reads, keyed by region ("" for the roll-up across regions). */
interface Figures {
  counts: DayCounts;
  buckets: { bucket: number; count: number }[];
}

const ALL = "";

/**
 * Counts and latency buckets of the month per region and across regions, from the daily aggregates (kept
 * DAILY_AGGREGATE_RETENTION_DAYS): four grouped reads, each one key range of its table.
 */
async function monthFigures(prisma: PrismaClient, monitorId: string, { from, to }: ReportMonth): Promise<Map<string, Figures>> {
  const ofMonitor = Prisma.sql`monitor_id = ${monitorId}`;
  const sums = Prisma.sql`sum(successful)::float8 AS successful, sum(degraded)::float8 AS degraded, sum(failed)::float8 AS failed`;
  type CountRow = DayCounts & { region: string };
  type BucketRow = { region: string; bucket: number; count: number };
  const [regionCounts, allCounts, regionBuckets, allBuckets] = await Promise.all([
    prisma.$queryRaw<CountRow[]>`SELECT region, ${sums} FROM (${aggregateRows(DAILY_RESULT_COUNTS, Prisma.sql`*`, ofMonitor, from, to)}) AS d GROUP BY region`,
    prisma.$queryRaw<CountRow[]>`SELECT '' AS region, ${sums} FROM (${aggregateRows(ALL_REGION_DAILY_RESULT_COUNTS, Prisma.sql`*`, ofMonitor, from, to)}) AS d HAVING count(*) > 0`,
    prisma.$queryRaw<BucketRow[]>`SELECT region, bucket, sum(count)::float8 AS count FROM (${aggregateRows(DAILY_LATENCY_BUCKETS, Prisma.sql`*`, ofMonitor, from, to)}) AS d GROUP BY region, bucket`,
    prisma.$queryRaw<BucketRow[]>`SELECT '' AS region, bucket, sum(count)::float8 AS count FROM (${aggregateRows(ALL_REGION_DAILY_LATENCY_BUCKETS, Prisma.sql`*`, ofMonitor, from, to)}) AS d GROUP BY bucket`,
  ]);
  const figures = new Map<string, Figures>();
  const of = (region: string) => figures.get(region) ?? figures.set(region, { counts: { successful: 0, degraded: 0, failed: 0 }, buckets: [] }).get(region)!;
  for (const { region, successful, degraded, failed } of [...allCounts, ...regionCounts]) of(region).counts = { successful, degraded, failed };
  for (const { region, bucket, count } of [...allBuckets, ...regionBuckets]) of(region).buckets.push({ bucket, count });
  return figures;
}

function figuresMessage(figures: Figures | undefined): MessageInitShape<typeof ReportFiguresSchema> {
  const counts = figures?.counts ?? { successful: 0, degraded: 0, failed: 0 };
  const percentiles = percentilesFromBuckets(figures?.buckets ?? [], REPORT_PERCENTILES);
  return {
    successful: BigInt(counts.successful),
    degraded: BigInt(counts.degraded),
    failed: BigInt(counts.failed),
    availability: uptimePercent(counts) ?? undefined,
    p50: BigInt(percentiles[50]),
    p90: BigInt(percentiles[90]),
    p95: BigInt(percentiles[95]),
    p99: BigInt(percentiles[99]),
  };
}

/** The incidents of `monitorIds` that overlap the month, oldest first. */
function monthIncidents(prisma: PrismaClient, monitorIds: string[], month: ReportMonth) {
  return prisma.incident.findMany({
    where: { monitorId: { in: monitorIds }, startedAt: { lt: month.to }, OR: [{ resolvedAt: null }, { resolvedAt: { gt: month.from } }] },
    orderBy: { startedAt: "asc" },
    select: { id: true, monitorId: true, severity: true, startedAt: true, resolvedAt: true },
  });
}

type MonthIncident = Awaited<ReturnType<typeof monthIncidents>>[number];

/** The downtime of `incidents` within the month (until `now` in the current one): failing (error) incidents, overlaps once. */
const downtimeSeconds = (incidents: MonthIncident[], month: ReportMonth, now: Date) =>
  BigInt(Math.round(coveredMs(incidents.filter((i) => i.severity === "error").map(interval), month.from, endOf(month, now)) / 1000));
const interval = (i: MonthIncident) => ({ start: i.startedAt, end: i.resolvedAt });
const endOf = (month: ReportMonth, now: Date) => new Date(Math.min(month.to.getTime(), now.getTime()));

/** GetMonitorReport's answer for `month`: until `now` where the month is the current one. */
export async function monitorReport(
  prisma: PrismaClient,
  monitor: { id: string; name: string },
  month: ReportMonth,
  now: Date,
): Promise<MessageInitShape<typeof GetMonitorReportResponseSchema>> {
  const [figures, incidents] = await Promise.all([monthFigures(prisma, monitor.id, month), monthIncidents(prisma, [monitor.id], month)]);
  const regions = [...figures.keys()].filter((region) => region !== ALL).sort();
  return {
    id: monitor.id,
    name: monitor.name,
    month: month.month,
    from: timestampFromDate(month.from),
    to: timestampFromDate(month.to),
    overall: figuresMessage(figures.get(ALL)),
    regions: regions.map((region) => ({ region: regionCodec.encode(region as RegionId), figures: figuresMessage(figures.get(region)) })),
    incidents: incidents.map((i) => ({
      id: i.id,
      severity: i.severity,
      startedAt: timestampFromDate(i.startedAt),
      resolvedAt: i.resolvedAt ? timestampFromDate(i.resolvedAt) : undefined,
      durationSeconds: BigInt(Math.round(coveredMs([interval(i)], month.from, endOf(month, now)) / 1000)),
    })),
    downtimeSeconds: downtimeSeconds(incidents, month, now),
    percentileRelativeError: PERCENTILE_RELATIVE_ERROR,
  };
}

/**
 * GetStatusPageReport's answer: each monitor component's checks and downtime over the month, and the page's: every
 * component's checks added up, and the time when any of them was down (a page is down where one of its parts is).
 */
export async function statusPageReport(
  prisma: PrismaClient,
  page: { id: string; name: string },
  components: { id: string; name: string; monitorId: string }[],
  month: ReportMonth,
  now: Date,
): Promise<MessageInitShape<typeof GetStatusPageReportResponseSchema>> {
  const monitorIds = [...new Set(components.map((c) => c.monitorId))];
  const [figures, incidents] = await Promise.all([
    Promise.all(monitorIds.map(async (id) => [id, (await monthFigures(prisma, id, month)).get(ALL)?.counts] as const)),
    monthIncidents(prisma, monitorIds, month),
  ]);
  const countsOf = new Map(figures);
  const zero: DayCounts = { successful: 0, degraded: 0, failed: 0 };
  const total = [...countsOf.values()].reduce<DayCounts>(
    (sum, c) => ({ successful: sum.successful + (c?.successful ?? 0), degraded: sum.degraded + (c?.degraded ?? 0), failed: sum.failed + (c?.failed ?? 0) }),
    zero,
  );
  return {
    id: page.id,
    name: page.name,
    month: month.month,
    from: timestampFromDate(month.from),
    to: timestampFromDate(month.to),
    availability: uptimePercent(total) ?? undefined,
    downtimeSeconds: downtimeSeconds(incidents, month, now),
    components: components.map((c) => {
      const counts = countsOf.get(c.monitorId) ?? zero;
      const own = incidents.filter((i) => i.monitorId === c.monitorId);
      return {
        componentId: c.id,
        name: c.name,
        monitorId: c.monitorId,
        successful: BigInt(counts.successful),
        degraded: BigInt(counts.degraded),
        failed: BigInt(counts.failed),
        availability: uptimePercent(counts) ?? undefined,
        downtimeSeconds: downtimeSeconds(own, month, now),
        incidents: BigInt(own.length),
      };
    }),
  };
}
