import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/** CHECK_THREAD_NICE's default: check threads before the host's ordinary work (nice 0), where the agent may ask it. */
export const DEFAULT_CHECK_THREAD_NICE = -10;
export const MIN_NICE = -20;
export const MAX_NICE = 19;

/** CHECK_THREAD_RT_PRIORITY's default: the lowest real-time priority, ahead of every ordinary thread and behind the kernel's own. */
export const DEFAULT_CHECK_THREAD_RT_PRIORITY = 1;
/** The highest priority Linux gives a real-time thread; 0 asks for none. */
export const MAX_RT_PRIORITY = 99;

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

/** The calling thread's id in the kernel: /proc/thread-self links to "<pid>/task/<tid>". */
function kernelThreadId(): string {
  return readlinkSync("/proc/thread-self").split("/").pop()!;
}

/**
 * Puts the calling thread under Linux's round-robin real-time scheduler at
 * `priority` (nothing for 0), and says why not where it cannot: it needs
 * CAP_SYS_NICE or an RLIMIT_RTPRIO that high, and `chrt` (util-linux), since
 * Node has no call for sched_setscheduler. The other threads keep the normal
 * scheduler.
 *
 * Why: a real-time thread woken by its socket takes a core from any ordinary
 * thread at once, where a nice value only weighs its turn. On the 2-core
 * benchmark machine at 300 checks a second beside Redis, the target and the
 * benchmark, a check thread at nice -10 still waited 33-107 µs per wake-up on
 * average and its p99 error read +3 to +4.6 ms in busy minutes; under this
 * scheduler it waited 0-3 µs and read +1.6 to +2.0 ms while the host's other
 * tenants took a third of a core (bench:fidelity, docs/benchmarks.md). A check
 * thread waits on sockets almost all the time, and the kernel keeps 5 % of
 * every second for ordinary threads should a real-time one ever spin
 * (sched_rt_runtime_us).
 */
export function setThreadRealtime(priority: number): string | undefined {
  return priority === 0 ? undefined : setRealtime(priority, kernelThreadId());
}

/**
 * Puts thread `id` (or, with `allTasks`, every thread of process `id`) under the round-robin real-time scheduler
 * at `priority`; answers why not where it cannot.
 */
export function setRealtime(priority: number, id: string, { allTasks = false } = {}): string | undefined {
  try {
    execFileSync("chrt", ["--rr", ...(allTasks ? ["--all-tasks"] : []), "--pid", String(priority), id], { stdio: ["ignore", "ignore", "pipe"] });
    return undefined;
  } catch (error) {
    return (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message;
  }
}
