import { getPriority, setPriority } from "node:os";

/** CHECK_THREAD_NICE's default: check threads before the host's ordinary work (nice 0), where the agent may ask it. */
export const DEFAULT_CHECK_THREAD_NICE = -10;
export const MIN_NICE = -20;
export const MAX_NICE = 19;

/**
 * Gives the calling thread the nice value `nice`, and says why not where it
 * cannot (a lower value than the process's needs CAP_SYS_NICE or a raised
 * RLIMIT_NICE). Linux keeps a nice value per thread, and `setPriority`
 * without a pid sets the calling thread's: the agent's main thread keeps its
 * own. (Elsewhere the value is the whole process's.)
 *
 * Why a check thread asks: its figures are the times its socket events are
 * read, and on a busy host a thread woken by its socket waits for a core.
 * On the 2-core benchmark machine, at 300 triggered checks a second beside
 * Redis, the target and the benchmark, the check thread waited 280-324 µs per
 * wake-up at nice 0 and 100-128 µs at -10, and the p99 error went from
 * +3.7-7.1 ms to +1.9-2.9 ms (bench:fidelity, docs/benchmarks.md). It uses a
 * few tens of % of a core, so the host's other work loses little.
 */
export function setThreadNice(nice: number): string | undefined {
  if (getPriority() === nice) return undefined;
  try {
    setPriority(nice);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
