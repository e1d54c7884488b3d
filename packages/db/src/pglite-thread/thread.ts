/**
 * The embedded database's own thread: it owns the PGlite instance and runs each statement the main thread sends.
 * See ./client.ts for why.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { messages, Mutex, PGlite, TransactionAbortedError } from "@electric-sql/pglite";
import type { FromPGliteThread, PGliteThreadSettings, ThreadError, ThreadResult, ToPGliteThread } from "./messages";
import { Statements } from "./statements";

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

/**
 * The database is one session. A transaction holds it from BEGIN to its end, and a statement from outside waits
 * until then, as PGlite's own transactions do; one statement runs at a time.
 */
const session = new Mutex();
const oneAtATime = new Mutex();
/** Open transactions by id: whether a rollback already ended it, and how to let the session go. */
const transactions = new Map<number, { rolledBack: boolean; release(): void }>();
const statements = new Statements(db);
/** Transaction control, one statement at a time like any other. */
const control = (sql: "BEGIN" | "COMMIT" | "ROLLBACK") => oneAtATime.runExclusive(() => db.exec(sql));

/**
 * Every type left as PostgreSQL's text, rows as arrays: the calling thread parses them (values.ts). A type PGlite
 * has no parser for stays text anyway, so its own parsers (the array types' among them, known once it is open) are
 * replaced where they live: parsers passed with each query would be merged into its ~300 on every call, which cost
 * more than a primary-key read (~0.18 ms a statement).
 */
const keepText = (text: string) => text;
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

async function beginTransaction(id: number): Promise<null> {
  const release = await session.acquire();
  try {
    await control("BEGIN");
  } catch (error) {
    release();
    throw error;
  }
  transactions.set(id, { rolledBack: false, release });
  return null;
}

async function rollBack(id: number): Promise<null> {
  const open = transaction(id);
  await control("ROLLBACK");
  open.rolledBack = true;
  return null;
}

/** Commits or rolls back; a COMMIT that PostgreSQL answers with ROLLBACK (an error earlier in it) is an error. */
async function endTransaction(id: number, commit: boolean): Promise<null> {
  const open = transaction(id);
  transactions.delete(id);
  try {
    if (open.rolledBack) return null;
    const [ended] = await control(commit ? "COMMIT" : "ROLLBACK");
    if (commit && ended?.command === "ROLLBACK") throw new TransactionAbortedError();
    return null;
  } finally {
    open.release();
  }
}

function transaction(id: number) {
  const open = transactions.get(id);
  if (!open) throw new Error(`transaction ${id} is not open`);
  return open;
}

/** Runs `work` as a statement of open transaction `tx`, or alone once no transaction holds the session. */
function inSession<T>(tx: number | undefined, work: () => Promise<T>): Promise<T> {
  if (tx === undefined) return session.runExclusive(() => oneAtATime.runExclusive(work));
  return oneAtATime.runExclusive(() => {
    if (transaction(tx).rolledBack) throw new Error("Transaction is closed");
    return work();
  });
}

async function run(request: ToPGliteThread): Promise<ThreadResult> {
  switch (request.op) {
    case "query":
      return inSession(request.tx, () => statements.run(request.text, request.values, request.tx !== undefined));
    case "exec":
      return inSession(request.tx, () => statements.script(request.text));
    case "begin":
      return beginTransaction(request.id);
    case "rollback":
      return rollBack(request.tx);
    case "end":
      return endTransaction(request.tx, request.commit);
    case "close":
      await session.runExclusive(() => db.close());
      return null;
    case "saveImage":
      await session.runExclusive(async () => writeFileSync(request.file, Buffer.from(await (await db.dumpDataDir("none")).arrayBuffer())));
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
