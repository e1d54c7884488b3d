import type { PrismaClient } from "@vigil/db";
import { TIME_RANGES } from "@vigil/domain";
import { BAR_DAYS } from "../status-pages/public/view";

const HOUR = 3_600_000;
/** Aggregates outlive the longest summary range by a day; nothing reads them after that. */
const AGGREGATE_KEEP_MS = TIME_RANGES["14d"] + 24 * HOUR;
/** Daily counts draw the 90-day bars of status pages (today and the 89 days before): 91 days keep every day a bar can show. */
const DAILY_COUNTS_KEEP_MS = (BAR_DAYS + 1) * 24 * HOUR;

/** Deletes raw results older than the retention and aggregates no summary can reach. */
export async function pruneResults(prisma: PrismaClient, retentionDays: number, now = new Date()): Promise<number> {
  const rawBefore = new Date(now.getTime() - retentionDays * 24 * HOUR);
  const aggregatesBefore = new Date(now.getTime() - AGGREGATE_KEEP_MS);
  const dailyCountsBefore = new Date(now.getTime() - DAILY_COUNTS_KEEP_MS);
  const [raw] = await prisma.$transaction([
    prisma.checkResult.deleteMany({ where: { startedAt: { lt: rawBefore } } }),
    prisma.resultCount.deleteMany({ where: { hour: { lt: aggregatesBefore } } }),
    prisma.latencyBucket.deleteMany({ where: { hour: { lt: aggregatesBefore } } }),
    prisma.dailyLatencyBucket.deleteMany({ where: { day: { lt: aggregatesBefore } } }),
    prisma.dailyResultCount.deleteMany({ where: { day: { lt: dailyCountsBefore } } }),
  ]);
  return raw.count;
}
