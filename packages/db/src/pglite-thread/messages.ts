import type { Results } from "@electric-sql/pglite";

/** What the thread opens: a data folder, or memory (empty, or a copy of an image that `saveImage` wrote). */
export interface PGliteThreadSettings {
  dataDir: string | null;
  image?: string;
}

/** One request to the thread. `tx` runs a statement inside that open transaction. */
export type ToPGliteThread = { id: number } & (
  | { op: "query"; tx?: number; text: string; values: unknown[] }
  | { op: "exec"; tx?: number; text: string }
  | { op: "begin" }
  | { op: "rollback"; tx: number }
  | { op: "end"; tx: number; commit: boolean }
  | { op: "close" }
  | { op: "saveImage"; file: string }
);

/** An error as it crosses the thread; `database` carries a PostgreSQL error's fields (code, detail, constraint…). */
export interface ThreadError {
  message: string;
  database?: { length: number; name: string; fields: Record<string, unknown> };
}

/** A statement's results as the thread sends them: each row an array of PostgreSQL's text (values.ts parses it). */
export type ThreadResults = Omit<Results, "rows"> & { rows: (string | null)[][] };

/** A query's results, an exec's results, or nothing (transaction control, close). */
export type ThreadResult = ThreadResults | ThreadResults[] | null;

export type FromPGliteThread =
  | { ready: true }
  | { failed: ThreadError }
  | { id: number; result: ThreadResult }
  | { id: number; error: ThreadError };
