import { readFileSync, readdirSync } from "node:fs";

/** Linux's ordinary scheduling policy, as /proc shows it. */
export const SCHED_OTHER = 0;

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
