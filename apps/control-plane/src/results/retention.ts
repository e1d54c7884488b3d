import { Prisma, type PrismaClient } from "@vigil/db";
import { AGGREGATES } from "./aggregates";

const HOUR = 3_600_000;

/**
 * Deletes raw results older than the retention and aggregate rows past their table's keep
 * (aggregates.ts): per-region tables and roll-ups across regions follow the same rule, so they
 * keep holding the same results. Raw results go monitor by monitor, through the
 * (monitor_id, started_at) index the ingest keeps anyway.
 */
export async function pruneResults(prisma: PrismaClient, retentionDays: number, now = new Date()): Promise<number> {
  const rawBefore = new Date(now.getTime() - retentionDays * 24 * HOUR);
  const [raw] = await prisma.$transaction([
    prisma.$executeRaw`
      DELETE FROM check_results r USING monitors m
      WHERE r.monitor_id = m.id AND r.started_at < ${rawBefore}`,
    ...AGGREGATES.map(
      ({ name, period, keepMs }) =>
        prisma.$executeRaw`DELETE FROM ${Prisma.raw(name)} WHERE ${Prisma.raw(period)} < ${new Date(now.getTime() - keepMs)}`,
    ),
  ]);
  return raw;
}
