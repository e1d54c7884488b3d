/**
 * The agent's checks run on threads of their own, away from its Redis work.
 *
 * A check's timings are taken on its socket's events, which its event loop
 * sees only once it is free. On the main thread that loop also fetches and
 * completes jobs and publishes results (BullMQ's scripts, XADD): under a few
 * hundred checks a second those stalled it for 10-50 ms at a time, and the
 * checks measured then reported that much more than the target took
 * (bench:fidelity). A check thread's loop runs checks and nothing else, and
 * its heap is collected apart from the main thread's. More than one thread
 * also spreads checks over the machine's cores.
 */
import { availableParallelism } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { CheckOutcome } from "@vigil/checks";
import type { Logger } from "@vigil/logging";
import type { CheckJobData } from "@vigil/queue";
import type { CheckThreadSettings, FromCheckThread, ThreadReady, ToCheckThread } from "./check-thread-messages";

/** The built thread, also when this module is loaded from its sources (the tests). */
const THREAD_SCRIPT = path.join(__dirname, "../dist/check-thread.js");

/** CHECK_THREADS at most: past a few, more agents spread the Redis work too. */
export const MAX_CHECK_THREADS = 16;

/** One thread per core the main thread leaves, at most four. */
export const defaultCheckThreads = (cores = availableParallelism()) => Math.min(4, Math.max(1, cores - 1));

interface Waiting {
  resolve(outcome: CheckOutcome): void;
  reject(error: Error): void;
}

class CheckThread {
  readonly pending = new Map<number, Waiting>();
  readonly worker: Worker;
  /** Resolves once the thread has warmed its check engine. */
  readonly ready: Promise<ThreadReady>;

  constructor(settings: CheckThreadSettings, onExit: (thread: CheckThread, error: Error) => void) {
    this.worker = new Worker(THREAD_SCRIPT, { workerData: settings });
    this.ready = new Promise((resolve, reject) => {
      this.worker.on("message", (message: FromCheckThread) => {
        if ("ready" in message) return resolve(message.ready);
        const waiting = this.pending.get(message.id);
        this.pending.delete(message.id);
        if ("outcome" in message) waiting?.resolve(message.outcome);
        else waiting?.reject(new Error(message.error));
      });
      this.worker.once("error", reject);
    });
    this.worker.once("exit", (code) => onExit(this, new Error(`check thread stopped (exit code ${code})`)));
  }

  run(id: number, job: CheckJobData): Promise<CheckOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, job } satisfies ToCheckThread);
    });
  }
}

export class CheckThreads {
  private readonly threads: CheckThread[] = [];
  private nextId = 0;
  private closing = false;

  private constructor(
    private readonly settings: CheckThreadSettings,
    private readonly logger: Logger,
  ) {}

  /** Starts `count` threads and waits until each has warmed up. */
  static async start(count: number, settings: CheckThreadSettings, logger: Logger): Promise<CheckThreads> {
    const threads = new CheckThreads(settings, logger);
    const ready = await Promise.all(Array.from({ length: count }, () => threads.add().ready));
    logger.info({ threads: count, warmUpChecks: ready.map((thread) => thread.warmUpChecks) }, "check threads started and warmed up on loopback");
    return threads;
  }

  /** Runs a check on the thread with the fewest in flight. */
  run(job: CheckJobData): Promise<CheckOutcome> {
    const thread = this.threads.reduce((least, t) => (t.pending.size < least.pending.size ? t : least));
    return thread.run(this.nextId++, job);
  }

  /** Stops the threads; call once no check is in flight. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private add(): CheckThread {
    const thread = new CheckThread(this.settings, (stopped, error) => this.replace(stopped, error));
    this.threads.push(thread);
    return thread;
  }

  /** A thread that died fails its checks in flight (their jobs fail as any check whose agent erred), and another takes its place. */
  private replace(stopped: CheckThread, error: Error): void {
    for (const waiting of stopped.pending.values()) waiting.reject(error);
    stopped.pending.clear();
    this.threads.splice(this.threads.indexOf(stopped), 1);
    if (this.closing) return;
    this.logger.error({ err: error }, "a check thread stopped; starting another");
    this.add();
  }
}
