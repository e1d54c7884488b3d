// CPU accounting from /proc (Linux; clock ticks of 1/100 s), to tell where the time went during a
// run and whether other work on the machine was competing with it. The same method as bench/api.ts.
import { readFileSync } from "node:fs";
import os from "node:os";

/** CPU time over wall time in a window, in % of one core (so up to 100 x cores in all). */
export interface Cpu {
  /** This process: the checks (or the bare loop) being measured. */
  bench: number;
  /** The child process serving the targets. */
  target: number;
  /** Whatever else ran: the kernel's share of loopback traffic, and other work on the machine. */
  rest: number;
}

function processTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Busy and total ticks of the whole machine, over all cores. */
function machineTicks(): { busy: number; total: number } {
  const values = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - values[3]! - values[4]!, total };
}

/** Raw counters; subtract two of them and pass the difference to cpuShares. */
export function cpuSnapshot(targetPid: number) {
  const self = process.cpuUsage();
  return { target: processTicks(targetPid), selfTicks: (self.user + self.system) / 10_000, machine: machineTicks() };
}
export type CpuSnapshot = ReturnType<typeof cpuSnapshot>;

export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  return {
    target: after.target - before.target,
    selfTicks: after.selfTicks - before.selfTicks,
    machine: { busy: after.machine.busy - before.machine.busy, total: after.machine.total - before.machine.total },
  };
}

export function cpuAdd(a: CpuSnapshot, b: CpuSnapshot): CpuSnapshot {
  return {
    target: a.target + b.target,
    selfTicks: a.selfTicks + b.selfTicks,
    machine: { busy: a.machine.busy + b.machine.busy, total: a.machine.total + b.machine.total },
  };
}

export function cpuShares(delta: CpuSnapshot): Cpu {
  // Machine ticks count every core, so they are the clock for all the shares.
  const elapsed = delta.machine.total / os.cpus().length;
  const share = (ticks: number) => Math.max(0, (100 * ticks) / elapsed);
  const bench = share(delta.selfTicks);
  const target = share(delta.target);
  return { bench, target, rest: Math.max(0, share(delta.machine.busy) - bench - target) };
}

/** Waits (up to a minute) for other work on the machine to pass, since it would skew the figures. */
export async function waitForQuietMachine(log: (message: string) => void): Promise<void> {
  for (let waited = 0; ; waited++) {
    const before = machineTicks();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = machineTicks();
    const busy = (100 * (after.busy - before.busy)) / (after.total - before.total);
    if (busy < 15) return;
    if (waited === 60) return log(`WARNING: the machine stays ${busy.toFixed(0)} % busy without the benchmark; figures will be low`);
    if (waited % 10 === 0) log(`machine ${busy.toFixed(0)} % busy before the run; waiting for it to settle`);
  }
}

export function describeMachine(): string {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown";
  const ram = (os.totalmem() / 2 ** 30).toFixed(1);
  return `${cpu}, ${os.cpus().length} cores, ${ram} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()}`;
}
