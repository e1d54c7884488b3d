import { Prisma } from "@vigil/db";
import { AGGREGATES } from "./aggregates";

/**
 * Deletes the stored results and aggregate rows of monitors deleted in this transaction. These tables
 * keep no foreign key to monitors (PostgreSQL would check it for every row the ingest writes), so this
 * stands in for its cascade. Call it after the monitors' rows are deleted: an ingest holding them locked
 * has committed by then, and a later one finds them gone and stores nothing (store.ts).
 */
export async function deleteResultsOf(tx: Prisma.TransactionClient, monitorIds: readonly string[]): Promise<void> {
  for (const table of ["check_results", ...AGGREGATES.map(({ name }) => name)]) {
    await tx.$executeRaw`DELETE FROM ${Prisma.raw(table)} WHERE monitor_id = ANY(${[...monitorIds]}::text[])`;
  }
}
