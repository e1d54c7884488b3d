/**
 * The embedded database's own thread: it owns the PGlite instance and runs each statement the main thread sends.
 * See ./client.ts for why.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { messages, PGlite, type QueryOptions, type Transaction } from "@electric-sql/pglite";
import type { FromPGliteThread, PGliteThreadSettings, ThreadError, ThreadResult, ThreadResults, ToPGliteThread } from "./messages";

const port = parentPort!;
const { dataDir, image } = workerData as PGliteThreadSettings;
/**
 * PostgreSQL's buffer cache inside the embedded database. initdb's 128 MB is allocated and touched at start, most of
 * a control plane's memory, for a working set (the newest results and aggregates, the monitors) of a few megabytes;
 * pages read past it come from the operating system's file cache, as PostgreSQL's do.
 */
const SHARED_BUFFERS = "16MB";
// All in the options: PGlite reads none of them when its first argument, the folder, is undefined.
const db = new PGlite({
  ...(dataDir !== null && { dataDir }),
  startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${SHARED_BUFFERS}`],
  ...(image !== undefined && { loadDataDir: new Blob([readFileSync(image)]) }),
});

interface OpenTransaction {
  tx: Transaction;
  /** Ends the transaction's callback: resolved commits, rejected rolls back. */
  finish(commit: boolean): void;
  /** Settles once PGlite has committed or rolled back. */
  done: Promise<unknown>;
}
const transactions = new Map<number, OpenTransaction>();

/** A transaction the caller chose to roll back, rather than a failure. */
const ROLLED_BACK = Symbol("rolled back");

/**
 * Every type left as PostgreSQL's text, rows as arrays: the calling thread parses them (values.ts). A type PGlite
 * has no parser for stays text anyway, so its own parsers (the array types' among them, known once it is open) are
 * replaced where they live: parsers passed with each query would be merged into its ~300 on every call, which cost
 * more than a primary-key read (~0.18 ms a statement).
 */
const keepText = (text: string) => text;
const AS_TEXT: QueryOptions = { rowMode: "array" };
function keepEveryTypeAsText(): void {
  for (const type of Object.keys(db.parsers)) db.parsers[type] = keepText;
}

/**
 * PostgreSQL's fields of an error (code, detail, constraint…) are strings; PGlite also hangs the query and its
 * options on it, whose parsers are functions that cannot cross threads, so only plain values go.
 */
function describe(error: unknown): ThreadError {
  if (error instanceof messages.DatabaseError) {
    const { length, name, message, ...rest } = error;
    const fields = Object.fromEntries(Object.entries(rest).filter(([, value]) => typeof value === "string"));
    return { message, database: { length, name, fields } };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}

function beginTransaction(id: number): Promise<null> {
  return new Promise((began, failed) => {
    const done = db.transaction(
      (tx) =>
        new Promise((committed, rolledBack) => {
          transactions.set(id, { tx, done, finish: (commit) => (commit ? committed(undefined) : rolledBack(ROLLED_BACK)) });
          began(null);
        }),
    );
    done.catch(failed).finally(() => transactions.delete(id));
  });
}

async function endTransaction(id: number, commit: boolean): Promise<null> {
  const open = transaction(id);
  open.finish(commit);
  await open.done.catch((error) => {
    if (error !== ROLLED_BACK) throw error;
  });
  return null;
}

function transaction(id: number): OpenTransaction {
  const open = transactions.get(id);
  if (!open) throw new Error(`transaction ${id} is not open`);
  return open;
}

const on = (tx: number | undefined): PGlite | Transaction => (tx === undefined ? db : transaction(tx).tx);

async function run(request: ToPGliteThread): Promise<ThreadResult> {
  switch (request.op) {
    case "query":
      return (await on(request.tx).query(request.text, request.values, AS_TEXT)) as ThreadResults;
    case "exec":
      return (await on(request.tx).exec(request.text, AS_TEXT)) as ThreadResults[];
    case "begin":
      return beginTransaction(request.id);
    case "rollback":
      await transaction(request.tx).tx.rollback();
      return null;
    case "end":
      return endTransaction(request.tx, request.commit);
    case "close":
      await db.close();
      return null;
    case "saveImage":
      writeFileSync(request.file, Buffer.from(await (await db.dumpDataDir("none")).arrayBuffer()));
      return null;
  }
}

/** An answer that cannot cross threads is still an answer: the caller gets an error rather than waiting forever. */
function answer(id: number, outcome: { result: ThreadResult } | { error: ThreadError }): void {
  try {
    port.postMessage({ id, ...outcome } satisfies FromPGliteThread);
  } catch (error) {
    port.postMessage({ id, error: { message: `the database's answer could not be passed on: ${describe(error).message}` } } satisfies FromPGliteThread);
  }
}

port.on("message", (request: ToPGliteThread) => {
  run(request).then(
    (result) => answer(request.id, { result }),
    (error) => answer(request.id, { error: describe(error) }),
  );
});

db.waitReady.then(
  () => {
    keepEveryTypeAsText();
    port.postMessage({ ready: true } satisfies FromPGliteThread);
  },
  (error) => port.postMessage({ failed: describe(error) } satisfies FromPGliteThread),
);
