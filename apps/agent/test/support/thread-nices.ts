import { readFileSync, readdirSync } from "node:fs";

/** The nice value of each thread of process `pid`, by thread id: Linux keeps one per thread. */
export function threadNices(pid: number | "self" = "self"): Map<string, number> {
  const nices = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    // The fields after the command's ")" start with the 3rd (state); nice is the 19th.
    nices.set(tid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
  }
  return nices;
}
