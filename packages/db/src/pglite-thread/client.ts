/**
 * Embedded PGlite on a thread of its own.
 *
 * PGlite is PostgreSQL compiled to WebAssembly: a statement runs to its end on the thread that sends it. On the
 * control plane's main thread every statement stopped the event loop while it ran, so API calls, ingest batches
 * and schedule reconciliations all waited behind one another's queries (stalls of 50-150 ms at 500 ListMonitors a
 * second, docs/benchmarks.md). On its own thread the database works beside the event loop, on another core, the
 * way a PostgreSQL server does; the main thread keeps only the messages.
 */
import path from "node:path";
import { Worker } from "node:worker_threads";
import { messages, type ParserOptions, type Results, type RowMode } from "@electric-sql/pglite";
import type { FromPGliteThread, PGliteThreadSettings, ThreadError, ThreadResult, ThreadResults, ToPGliteThread } from "./messages";
import { ARRAY_TYPES_SQL, ValueParsers, type ArrayType } from "./values";

/** The built thread, also when this module is loaded from its sources (the tests). */
const THREAD_SCRIPT = path.join(__dirname, "../../dist/pglite-thread/thread.js");

/** How a query's rows come back: as arrays or objects, with the caller's parsers before PGlite's. */
export interface ThreadQueryOptions {
  rowMode?: RowMode;
  parsers?: ParserOptions;
}

/** The statements of one open transaction, as PGlite's `Transaction` offers them. */
export interface ThreadTransaction {
  query<T>(text: string, values?: unknown[], options?: ThreadQueryOptions): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

type Request = ToPGliteThread extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never;

interface Waiting {
  resolve(result: ThreadResult): void;
  reject(error: Error): void;
}

export class PGliteThread {
  private readonly pending = new Map<number, Waiting>();
  private nextId = 1;
  /** Why no more requests are taken: closed, or the thread stopped. */
  private stopped: Error | null = null;
  private parsers = new ValueParsers([]);

  private constructor(private readonly worker: Worker) {}

  /** Starts the thread and waits until its database is open (`dataDir` null: in memory, a copy of `image` if given). */
  static open(settings: PGliteThreadSettings): Promise<PGliteThread> {
    const worker = new Worker(THREAD_SCRIPT, { workerData: settings });
    const thread = new PGliteThread(worker);
    return new Promise((opened, failed) => {
      worker.on("message", (message: FromPGliteThread) => {
        if ("ready" in message) {
          // Like an idle socket, an idle database does not keep the process alive; a request in flight does.
          worker.unref();
          thread.learnArrayTypes().then(
            () => opened(thread),
            (error) => {
              failed(error);
              void worker.terminate();
            },
          );
        } else if ("failed" in message) {
          failed(threadError(message.failed));
          void worker.terminate();
        } else thread.settle(message);
      });
      worker.on("error", (cause) => {
        const error = new Error(`the embedded database's thread failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
        thread.stop(error);
        failed(error);
      });
      worker.once("exit", (code) => {
        const error = new Error(`the embedded database's thread stopped (exit code ${code})`);
        thread.stop(error);
        failed(error);
      });
    });
  }

  query<T>(text: string, values: unknown[] = [], options: ThreadQueryOptions = {}): Promise<Results<T>> {
    return this.queryIn(undefined, text, values, options);
  }

  async exec(text: string): Promise<Results[]> {
    return this.execIn(undefined, text);
  }

  /** Runs `callback` in one transaction: committed when it resolves, rolled back when it throws or calls rollback(). */
  async transaction<T>(callback: (tx: ThreadTransaction) => Promise<T>): Promise<T> {
    const tx = this.nextId++;
    await this.send(tx, { op: "begin" });
    let closed = false;
    let rollingBack: Promise<unknown> | undefined;
    const open = () => {
      if (closed) throw new Error("Transaction is closed");
    };
    const result = await callback({
      query: (text, values = [], options = {}) => (open(), this.queryIn(tx, text, values, options)),
      exec: (text) => (open(), this.execIn(tx, text)),
      rollback: async () => {
        open();
        await (rollingBack = this.request({ op: "rollback", tx }));
        closed = true;
      },
      get closed() {
        return closed;
      },
    }).catch(async (error: unknown) => {
      await rollingBack?.catch(() => {});
      // The callback's error is the one to report; a rollback that fails too (the thread gone) adds nothing to it.
      await this.request({ op: "end", tx, commit: false }).catch(() => {});
      closed = true;
      throw error;
    });
    // A rollback the callback did not wait for must reach the thread before the transaction ends.
    await rollingBack?.catch(() => {});
    closed = true;
    await this.request({ op: "end", tx, commit: true });
    return result;
  }

  /** Writes the database's files to `file`, an image that PGliteThreadSettings' `image` opens a copy of. */
  async saveImage(file: string): Promise<void> {
    await this.request({ op: "saveImage", file });
  }

  /** Closes the database (its files complete on disk) and ends the thread. */
  async close(): Promise<void> {
    if (this.stopped) return;
    await this.request({ op: "close" });
    this.stopped = new Error("the embedded database is closed");
    await this.worker.terminate();
  }

  /** PGlite parses the array types it finds when it opens; so does this side. */
  private async learnArrayTypes(): Promise<void> {
    this.parsers = new ValueParsers((await this.query<ArrayType>(ARRAY_TYPES_SQL)).rows);
  }

  private async queryIn<T>(tx: number | undefined, text: string, values: unknown[], options: ThreadQueryOptions): Promise<Results<T>> {
    return this.parsers.results<T>((await this.request({ op: "query", tx, text, values })) as ThreadResults, options);
  }

  private async execIn(tx: number | undefined, text: string): Promise<Results[]> {
    return ((await this.request({ op: "exec", tx, text })) as ThreadResults[]).map((results) => this.parsers.results(results));
  }

  private request(request: Request): Promise<ThreadResult> {
    return this.send(this.nextId++, request);
  }

  private send(id: number, request: Request): Promise<ThreadResult> {
    if (this.stopped) return Promise.reject(this.stopped);
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id } as ToPGliteThread);
    });
  }

  private settle(message: { id: number; result: ThreadResult } | { id: number; error: ThreadError }): void {
    const waiting = this.pending.get(message.id);
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker.unref();
    if ("error" in message) waiting?.reject(threadError(message.error));
    else waiting?.resolve(message.result);
  }

  private stop(error: Error): void {
    if (this.stopped) return;
    this.stopped = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

/** A PostgreSQL error comes back as PGlite's own DatabaseError, which the Prisma adapter turns into Prisma's codes. */
function threadError(error: ThreadError): Error {
  if (!error.database) return new Error(error.message);
  const { length, name, fields } = error.database;
  return Object.assign(new messages.DatabaseError(error.message, length, name as ConstructorParameters<typeof messages.DatabaseError>[2]), fields);
}
