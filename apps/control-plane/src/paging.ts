import { ValidationError, isStorableText } from "@vigil/domain";

/**
 * Where a page read newest first by (time, id) ends, as the next page starts after it: a key that
 * rows stored later do not move, so pages neither repeat nor skip a row as new ones arrive.
 */
export interface Cursor {
  at: Date;
  id: string;
}

const CURSOR_RULE = "must be a next_cursor this API answered";

export const encodeCursor = ({ at, id }: Cursor) => Buffer.from(JSON.stringify([at.getTime(), id])).toString("base64url");

/** The cursor a client sent back; invalid_argument on `cursor` for anything this API did not answer. */
export function decodeCursor(text: string): Cursor {
  try {
    const [time, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    const at = new Date(Number.isSafeInteger(time) ? (time as number) : NaN);
    // What the database could not compare (a time past JavaScript's, a NUL in the id) is no cursor either.
    if (!Number.isNaN(at.getTime()) && typeof id === "string" && id !== "" && isStorableText(id)) return { at, id };
  } catch {
    // Not JSON: refused below like any other text that is not a cursor.
  }
  throw ValidationError.of("cursor", CURSOR_RULE);
}

/** A page of `rows` read with one more than `limit` (the one more tells whether there is a next page), and its next cursor. */
export function pageOf<T>(rows: readonly T[], limit: number, keyOf: (row: T) => Cursor): { items: T[]; nextCursor: string } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(keyOf(last)) : "" };
}
