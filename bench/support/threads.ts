// Where a Node process's CPU time goes, by thread (/proc/<pid>/task). Node 20 names all its threads "node", so they
// are told apart by what they wait on when idle: the main thread is the one whose id is the process's; a thread
// seen waiting in epoll runs an event loop of its own (a worker_threads Worker: the embedded database's thread in
// the control plane, the check threads in the agent; and Node's own, idle, delayed-task thread); the others wait on
// futexes: V8's platform workers (garbage collection, compilation) and libuv's pool (files, DNS, crypto). A thread
// that has a name other than the process's (later Node versions name theirs) is grouped under that name.
import { readFileSync } from "node:fs";
import { processTicks, threadTicks } from "./machine";

export const MAIN_THREAD = "main thread";
export const WORKER_THREADS = "worker threads";
export const HELPER_THREADS = "GC, compiler and libuv pool threads";

export class ThreadMeter {
  private readonly before: Map<number, { comm: string; ticks: number }>;
  private readonly comm: string;
  private readonly eventLoops = new Set<number>();

  constructor(private readonly pid: number) {
    this.comm = processTicks(pid).comm;
    this.before = threadTicks(pid);
    this.sample();
  }

  /** Notes which threads wait in epoll now; the more often it is called during a measurement, the surer the grouping. */
  sample(): void {
    for (const tid of threadTicks(this.pid).keys()) {
      try {
        if (readFileSync(`/proc/${this.pid}/task/${tid}/wchan`, "utf8").includes("epoll")) this.eventLoops.add(tid);
      } catch {
        // The thread ended.
      }
    }
  }

  private groupOf(tid: number, comm: string): string {
    if (tid === this.pid) return MAIN_THREAD;
    if (comm !== this.comm) return comm;
    return this.eventLoops.has(tid) ? WORKER_THREADS : HELPER_THREADS;
  }

  /** CPU ticks since the meter started, by group (a thread that ended in between is left out). */
  ticksByGroup(): Map<string, number> {
    const groups = new Map<string, number>();
    for (const [tid, { comm, ticks }] of threadTicks(this.pid)) {
      const group = this.groupOf(tid, comm);
      groups.set(group, (groups.get(group) ?? 0) + ticks - (this.before.get(tid)?.ticks ?? 0));
    }
    return groups;
  }
}
