import type { PrismaClient } from "@vigil/db";
import { TIME_RANGES } from "@vigil/domain";

const HOUR = 3_600_000;
/** Aggregates outlive the longest summary range by a day; nothing reads them after that. */
const AGGREGATE_KEEP_MS = TIME_RANGES["14d"] + 24 * HOUR;

/** Deletes raw results older than the retention and aggregates no summary can reach. */
export async function pruneResults(prisma: PrismaClient, retentionDays: number, now = new Date()): Promise<number> {
  const rawBefore = new Date(now.getTime() - retentionDays * 24 * HOUR);
  const aggregatesBefore = new Date(now.getTime() - AGGREGATE_KEEP_MS);
  const [raw] = await prisma.$transaction([
    prisma.checkResult.deleteMany({ where: { startedAt: { lt: rawBefore } } }),
    prisma.resultCount.deleteMany({ where: { hour: { lt: aggregatesBefore } } }),
    prisma.latencyBucket.deleteMany({ where: { hour: { lt: aggregatesBefore } } }),
    prisma.dailyLatencyBucket.deleteMany({ where: { day: { lt: aggregatesBefore } } }),
  ]);
  return raw.count;
}
