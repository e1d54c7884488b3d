import { readFileSync, readdirSync } from "node:fs";

/** Linux's scheduling policies, as /proc shows them. */
export const SCHED_OTHER = 0;
export const SCHED_RR = 2;

export interface ThreadScheduling {
  nice: number;
  policy: number;
  /** 0 under the ordinary scheduler. */
  rtPriority: number;
}

/** How each thread of process `pid` is scheduled, by thread id: Linux keeps these per thread. */
export function threadScheduling(pid: number | "self" = "self"): Map<string, ThreadScheduling> {
  const threads = new Map<string, ThreadScheduling>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    // The fields after the command's ")" start with the 3rd (state): nice is the 19th, rt_priority the 40th, policy the 41st.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    threads.set(tid, { nice: Number(fields[16]), rtPriority: Number(fields[37]), policy: Number(fields[38]) });
  }
  return threads;
}

/** The threads of this process started since `before` was read. */
export function threadsSince(before: Map<string, ThreadScheduling>): ThreadScheduling[] {
  return [...threadScheduling()].filter(([tid]) => !before.has(tid)).map(([, thread]) => thread);
}

/**
 * Whether this process may put a thread under a real-time scheduler at `priority`: with CAP_SYS_NICE (bit 23 of its
 * effective capabilities), or within its RLIMIT_RTPRIO. Agents started by the tests inherit both.
 */
export function mayUseRealtime(priority: number): boolean {
  const status = readFileSync("/proc/self/status", "utf8");
  const capEff = BigInt(`0x${/^CapEff:\s*([0-9a-f]+)/m.exec(status)![1]}`);
  if ((capEff >> 23n) & 1n) return true;
  const limit = /^Max realtime priority\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))![1]!;
  return limit === "unlimited" || Number(limit) >= priority;
}
