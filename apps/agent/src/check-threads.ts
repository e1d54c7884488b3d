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
 *
 * The threads are a Piscina pool of a fixed size. Checks wait on sockets, so a
 * thread holds as many at once as the agent lets run (its in-flight limit
 * bounds them, never the pool), and each goes to the thread with the fewest in
 * flight. Piscina's Atomics are off: with them an idle thread blocks in
 * Atomics.wait, and a thread with checks in flight must keep reading its
 * sockets. A thread that dies fails its checks in flight (their jobs fail as
 * any check whose agent erred), and Piscina starts another.
 */
import { availableParallelism } from "node:os";
import path from "node:path";
import Piscina from "piscina";
import type { CheckOutcome } from "@vigil/checks";
import type { Logger } from "@vigil/logging";
import type { CheckJobData } from "@vigil/queue";
import type { CheckThreadSettings, ThreadReady } from "./check-thread-messages";
import { MAX_IN_FLIGHT } from "./in-flight-limit";

/** The built thread, also when this module is loaded from its sources (the tests). */
const THREAD_SCRIPT = path.join(__dirname, "../dist/check-thread.js");

/** CHECK_THREADS at most: past a few, more agents spread the Redis work too. */
export const MAX_CHECK_THREADS = 16;

/** One thread per core the main thread leaves, at most four. */
export const defaultCheckThreads = (cores = availableParallelism()) => Math.min(4, Math.max(1, cores - 1));

export class CheckThreads {
  private closing = false;

  /** `pool`: the Piscina pool underneath, for its threads and counts. */
  private constructor(readonly pool: Piscina<CheckJobData, CheckOutcome>) {}

  /** Starts `count` threads and waits until each has warmed up. */
  static async start(count: number, settings: CheckThreadSettings, logger: Logger): Promise<CheckThreads> {
    const pool = new Piscina<CheckJobData, CheckOutcome>({
      filename: THREAD_SCRIPT,
      workerData: settings,
      minThreads: count,
      maxThreads: count,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: MAX_IN_FLIGHT,
      atomics: "disabled",
      recordTiming: false,
    });
    const threads = new CheckThreads(pool);
    pool.on("workerDestroy", (thread) => {
      if (!threads.closing) logger.error({ threadId: thread.id }, "a check thread stopped; starting another");
    });
    const warmUpChecks = await new Promise<number[]>((warmedUp, failed) => {
      const counts: number[] = [];
      const ready = (message: ThreadReady) => {
        if (counts.push(message.warmUpChecks) < count) return;
        pool.off("message", ready).off("error", failed);
        warmedUp(counts);
      };
      pool.on("message", ready).once("error", failed);
    });
    // A thread that fails with no check in flight (Piscina's other failures reject the checks').
    pool.on("error", (error) => logger.error({ err: error }, "a check thread failed"));
    logger.info({ threads: count, warmUpChecks }, "check threads started and warmed up on loopback");
    return threads;
  }

  run(job: CheckJobData): Promise<CheckOutcome> {
    return this.pool.run(job);
  }

  /** Stops the threads; call once no check is in flight. */
  async close(): Promise<void> {
    this.closing = true;
    await this.pool.destroy();
  }
}
