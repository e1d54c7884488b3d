import { Prisma, type PrismaClient } from "@vigil/db";
import type { RegionId } from "@vigil/domain";
import type { CheckStatus, Timing } from "@vigil/checks";
import { decodeCursor, pageOf } from "../paging";

export interface StoredResult {
  id: string;
  region: RegionId;
  trigger: string;
  startedAt: Date;
  latencyMs: number;
  timing: Timing;
  statusCode: number | null;
  status: CheckStatus;
  error: string | null;
  reason: string | null;
  traceId: string | null;
  attempts: number;
  inMaintenance: boolean;
}

/** A page of a monitor's results, newest first, after `cursor` (a previous page's next cursor; empty for the first). */
export async function listCheckResults(
  prisma: PrismaClient,
  monitorId: string,
  regions: readonly RegionId[],
  limit: number,
  cursor: string,
): Promise<{ results: StoredResult[]; nextCursor: string }> {
  const after = cursor === "" ? null : decodeCursor(cursor);
  const ofRegions = regions.length > 0 ? Prisma.sql` AND region = ANY(${[...regions]}::text[])` : Prisma.empty;
  const before = after ? Prisma.sql` AND (started_at, id) < (${after.at}, ${after.id})` : Prisma.empty;
  const rows = await prisma.$queryRaw<StoredResult[]>`
    SELECT id, region, trigger, started_at AS "startedAt", latency_ms AS "latencyMs", timing, status_code AS "statusCode", status, error, reason,
      trace_id AS "traceId", attempts, in_maintenance AS "inMaintenance" FROM check_results
    WHERE monitor_id = ${monitorId}${ofRegions}${before}
    ORDER BY started_at DESC, id DESC LIMIT ${limit + 1}`;
  const { items: results, nextCursor } = pageOf(rows, limit, (row) => ({ at: row.startedAt, id: row.id }));
  return { results, nextCursor };
}
