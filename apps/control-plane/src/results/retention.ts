import { Prisma, type PrismaClient } from "@vigil/db";
import { AGGREGATE_RETENTION_MS } from "@vigil/domain";
import { AGGREGATES, type AggregateTable } from "./aggregates";

const DAY_MS = 86_400_000;

/** RESULT_RETENTION_DAYS and DAILY_AGGREGATE_RETENTION_DAYS. */
export interface ResultRetention {
  resultDays: number;
  dailyAggregateDays: number;
}

/**
 * Deletes raw results older than the retention and aggregate rows past their table's keep
 * (aggregates.ts): per-region tables and roll-ups across regions follow the same rule, so they
 * keep holding the same results. Raw results go monitor by monitor, through the
 * (monitor_id, started_at) index the ingest keeps anyway.
 */
export async function pruneResults(prisma: PrismaClient, retention: ResultRetention, now = new Date()): Promise<number> {
  const rawBefore = new Date(now.getTime() - retention.resultDays * DAY_MS);
  const keepMs = (table: AggregateTable) => (table.keep === "daily" ? retention.dailyAggregateDays * DAY_MS : AGGREGATE_RETENTION_MS.summaries);
  const [raw] = await prisma.$transaction([
    prisma.$executeRaw`
      DELETE FROM check_results r USING monitors m
      WHERE r.monitor_id = m.id AND r.started_at < ${rawBefore}`,
    ...AGGREGATES.map(
      (table) =>
        prisma.$executeRaw`DELETE FROM ${Prisma.raw(table.name)} WHERE ${Prisma.raw(table.period)} < ${new Date(now.getTime() - keepMs(table))}`,
    ),
  ]);
  return raw;
}
