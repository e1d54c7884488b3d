import { Prisma, type PrismaClient } from "@vigil/db";
import { AGGREGATES } from "./aggregates";

const HOUR = 3_600_000;

/**
 * Deletes raw results older than the retention and aggregate rows past their table's keep
 * (aggregates.ts): per-region tables and roll-ups across regions follow the same rule, so they
 * keep holding the same results.
 */
export async function pruneResults(prisma: PrismaClient, retentionDays: number, now = new Date()): Promise<number> {
  const rawBefore = new Date(now.getTime() - retentionDays * 24 * HOUR);
  const [raw] = await prisma.$transaction([
    prisma.checkResult.deleteMany({ where: { startedAt: { lt: rawBefore } } }),
    ...AGGREGATES.map(
      ({ name, period, keepMs }) =>
        prisma.$executeRaw`DELETE FROM ${Prisma.raw(name)} WHERE ${Prisma.raw(period)} < ${new Date(now.getTime() - keepMs)}`,
    ),
  ]);
  return raw.count;
}
