import { Code, ConnectError } from "@connectrpc/connect";
import { Prisma } from "@vigil/db";

interface UniqueViolationMeta {
  target?: unknown;
  driverAdapterError?: { cause?: { constraint?: { index?: string; fields?: string[] } } };
}

/**
 * The unique index a write broke, as "_column_column_" or "_index_name_" (the
 * PostgreSQL adapter names the index, PGlite's gives its columns); null when
 * the error is no unique violation.
 */
function brokenIndex(error: unknown): string | null {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== "P2002") return null;
  const meta = (error.meta ?? {}) as UniqueViolationMeta;
  const constraint = meta.driverAdapterError?.cause?.constraint;
  const target = Array.isArray(meta.target) ? meta.target.join("_") : String(meta.target ?? "");
  return `_${constraint?.index ?? constraint?.fields?.join("_") ?? target}_`;
}

/**
 * Runs a write that a unique index may refuse, and answers the refusal as
 * already_exists with the message given for the index's column (snake_case,
 * e.g. `external_id`). The race between two writers is settled by the index
 * rather than by a read before the write, so this is where a duplicate shows.
 */
export async function refusingDuplicates<T>(messages: Readonly<Record<string, string>>, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const index = brokenIndex(error);
    const column = index === null ? undefined : Object.keys(messages).find((name) => index.includes(`_${name}_`));
    const message = column === undefined ? undefined : messages[column];
    if (message === undefined) throw error;
    throw new ConnectError(message, Code.AlreadyExists);
  }
}

/**
 * The message of a taken external id for refusingDuplicates, when the write
 * sets one: e.g. "monitor.externalId: another monitor of this workspace has external id api".
 */
export function externalIdTaken(prefix: string, others: string, externalId: string | null | undefined): Record<string, string> {
  return externalId ? { external_id: `${prefix}.externalId: another ${others} has external id ${externalId}` } : {};
}
