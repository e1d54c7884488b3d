// The machine the benchmarks run on: CPU accounting from /proc (Linux; clock ticks of 1/100 s), to
// tell where the time went during a run and whether other work on the machine was competing with it,
// waiting for that other work to pass or measuring again, how the kernel schedules a process's threads, and
// the "Run on ..." line of docs/benchmarks.md.
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import os from "node:os";
import { log } from "./run";

// ---- ticks -----------------------------------------------------------------------------------

/** Command name and CPU ticks (user + system) of one process. */
export function processTicks(pid: number | string): { comm: string; ticks: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
  return { comm: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(") ")), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** A ticks source for cpuMeter: one process by id, 0 once it has ended. */
export const pidTicks = (pid: number) => (): number => {
  try {
    return processTicks(pid).ticks;
  } catch {
    return 0;
  }
};

/** CPU ticks of this process. */
export function selfTicks(): number {
  const self = process.cpuUsage();
  return (self.user + self.system) / 10_000;
}

/** Every process id running now. */
const allPids = () => readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number);

/** Ticks of every process whose command name is `comm` and whose command line matches `filter`. */
export function ticksOf(comm: string, filter?: (cmdline: string) => boolean): number {
  let ticks = 0;
  for (const pid of allPids()) {
    try {
      const stat = processTicks(pid);
      if (stat.comm !== comm) continue;
      if (filter && !filter(readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " "))) continue;
      ticks += stat.ticks;
    } catch {
      // The process ended while the list was read.
    }
  }
  return ticks;
}

export const postgresTicks = () => ticksOf("postgres");

/** A PostgreSQL process's title without its "postgres: <cluster>: " start: "vigil db 127.0.0.1(5000) idle", "checkpointer". */
const POSTGRES_TITLE = /^postgres: (?:[^:]+: )?(.*)$/;
/** The database of a backend ("<user> <database> <client> <state>") or of an autovacuum worker. */
const POSTGRES_DATABASE = /^(?:\S+ (\S+) (?:\S+\(\d+\)|\[local\])|autovacuum worker (\S+))/;

/**
 * The PostgreSQL server's processes that work for `database`: the server itself, its background processes, and the
 * backends and autovacuum workers of that database, not those of others (the tests' databases on a shared server).
 */
export function postgresPids(database: string): number[] {
  return allPids().filter((pid) => {
    try {
      if (processTicks(pid).comm !== "postgres") return false;
      const title = POSTGRES_TITLE.exec(readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim());
      const serves = title && POSTGRES_DATABASE.exec(title[1]!);
      return !serves || (serves[1] ?? serves[2]) === database;
    } catch {
      return false;
    }
  });
}

/** Whether the process runs (it has not ended, nor been left a zombie for its parent to reap). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !"ZX".includes(stat[stat.lastIndexOf(") ") + 2]!);
  } catch {
    return false;
  }
}

/** Each thread of a process by thread id: its name and CPU ticks (user + system); empty once it has ended. */
export function threadTicks(pid: number): Map<number, { comm: string; ticks: number }> {
  const threads = new Map<number, { comm: string; ticks: number }>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) threads.set(Number(tid), processTicks(`${pid}/task/${tid}`));
  } catch {
    // The process or one of its threads ended while the list was read.
  }
  return threads;
}
/** The Redis server listening on `port` (its command line names the port). */
export const redisTicks = (port: string) => () => ticksOf("redis-server", (cmdline) => cmdline.includes(`:${port}`));

/** How one thread was scheduled so far (/proc/<pid>/task/<tid>/schedstat): time on a core, time ready but waiting for one, and how many times it was put on one. */
export interface ThreadSchedule {
  runNs: number;
  waitNs: number;
  slices: number;
}

/** Each thread of a process by thread id; empty once it has ended. */
export function threadSchedules(pid: number): Map<string, ThreadSchedule> {
  const threads = new Map<string, ThreadSchedule>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const [runNs, waitNs, slices] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").trim().split(" ").map(Number);
      threads.set(tid, { runNs: runNs!, waitNs: waitNs!, slices: slices! });
    }
  } catch {
    // The process or one of its threads ended while the list was read.
  }
  return threads;
}

/** Busy and total ticks of the whole machine, over all cores. */
export function machineTicks(): { busy: number; total: number } {
  const values = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - values[3]! - values[4]!, total };
}

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

// ---- CPU shares ------------------------------------------------------------------------------

/** CPU time over wall time in % of one core (so up to 100 x cores in all): this process, the named others, and the rest of the machine. */
export type Cpu = Record<string, number> & { self: number; rest: number };

/** Raw counters: this process, the named others, the machine. Subtract two of them (cpuDelta) and pass the difference to cpuShares. */
export interface CpuSnapshot {
  others: Record<string, number>;
  self: number;
  machine: { busy: number; total: number };
}

/** `others` names other processes to account for (e.g. { postgres: postgresTicks }). */
export function cpuSnapshot(others: Record<string, () => number>): CpuSnapshot {
  return {
    others: Object.fromEntries(Object.entries(others).map(([name, ticks]) => [name, ticks()])),
    self: selfTicks(),
    machine: machineTicks(),
  };
}

const combine = (a: CpuSnapshot, b: CpuSnapshot, op: (x: number, y: number) => number): CpuSnapshot => ({
  others: Object.fromEntries(Object.keys(a.others).map((name) => [name, op(a.others[name]!, b.others[name]!)])),
  self: op(a.self, b.self),
  machine: { busy: op(a.machine.busy, b.machine.busy), total: op(a.machine.total, b.machine.total) },
});

export const cpuDelta = (before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot => combine(after, before, (x, y) => x - y);

export const cpuAdd = (a: CpuSnapshot, b: CpuSnapshot): CpuSnapshot => combine(a, b, (x, y) => x + y);

export function cpuShares(delta: CpuSnapshot): Cpu {
  // Machine ticks count every core, so they are the clock for all the shares.
  const elapsed = delta.machine.total / os.cpus().length;
  // Clamped: a process that ends during the window takes its ticks with it.
  const share = (ticks: number) => Math.max(0, (100 * ticks) / elapsed);
  const cpu: Record<string, number> = { self: share(delta.self) };
  for (const name of Object.keys(delta.others)) cpu[name] = share(delta.others[name]!);
  const busy = share(delta.machine.busy);
  const accounted = Object.values(cpu).reduce((a, b) => a + b, 0);
  return { ...cpu, rest: Math.max(0, busy - accounted) } as Cpu;
}

/** Starts measuring; the returned function gives the shares since then. */
export function cpuMeter(others: Record<string, () => number>): () => Cpu {
  const before = cpuSnapshot(others);
  return () => cpuShares(cpuDelta(before, cpuSnapshot(others)));
}

// ---- memory ----------------------------------------------------------------------------------

const kibibytesOf = (file: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(file, "utf8"))![1]) * 1024;

/** Resident memory of a process (VmRSS), in bytes. */
export const rssBytes = (pid: number) => kibibytesOf(`/proc/${pid}/status`, "VmRSS");

/** Proportional set size (Pss), in bytes: a page shared by n processes counts 1/n in each, so a sum over processes counts it once. */
export const pssBytes = (pid: number) => kibibytesOf(`/proc/${pid}/smaps_rollup`, "Pss");

const PAGE_BYTES = 4096;
/** Pagemap entries read at once. */
const PAGES_PER_READ = 65_536;
const PAGE_PRESENT = 1n << 63n;
const FRAME_NUMBER = (1n << 55n) - 1n;

/** The address ranges of a process's mappings that have pages in memory (smaps: Rss above 0). */
function residentRanges(pid: number): { start: number; end: number }[] {
  const ranges: { start: number; end: number }[] = [];
  let current: { start: number; end: number } | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (range) current = { start: parseInt(range[1]!, 16), end: parseInt(range[2]!, 16) };
    else if (current && /^Rss:\s+[1-9]/.test(line)) ranges.push(current);
  }
  return ranges;
}

/**
 * The memory a set of processes holds together, in bytes: each page in memory counted once however many of them map
 * it (the Node binary that two Node processes share, PostgreSQL's shared buffers in each of its processes), where a
 * sum of RSS counts it in each and a sum of Pss counts only a share of a page also mapped by processes outside the
 * set. Read from /proc/<pid>/pagemap; null when the page frames are hidden (they are from anyone but root).
 */
export function distinctResidentBytes(pids: number[]): number | null {
  const frames = new Set<number>();
  const buffer = Buffer.alloc(PAGES_PER_READ * 8);
  for (const pid of pids) {
    const fd = openSync(`/proc/${pid}/pagemap`, "r");
    try {
      for (const { start, end } of residentRanges(pid)) {
        for (let page = start / PAGE_BYTES; page < end / PAGE_BYTES; page += PAGES_PER_READ) {
          const pages = Math.min(PAGES_PER_READ, end / PAGE_BYTES - page);
          readSync(fd, buffer, 0, pages * 8, page * 8);
          for (let i = 0; i < pages; i++) {
            const entry = buffer.readBigUInt64LE(i * 8);
            if ((entry & PAGE_PRESENT) === 0n) continue;
            const frame = Number(entry & FRAME_NUMBER);
            if (frame === 0) return null;
            frames.add(frame);
          }
        }
      }
    } finally {
      closeSync(fd);
    }
  }
  return frames.size * PAGE_BYTES;
}

// ---- the machine -----------------------------------------------------------------------------

/**
 * Other work on the machine (tests, builds) would skew the figures: waits (up to a minute) for it
 * to pass; returns the busy % it settled at.
 */
export async function waitForQuietMachine(): Promise<number> {
  for (let waited = 0; ; waited++) {
    const before = machineTicks();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = machineTicks();
    const busy = (100 * (after.busy - before.busy)) / (after.total - before.total);
    if (busy < 15) return busy;
    if (waited === 60) {
      log(`WARNING: the machine stays ${busy.toFixed(0)} % busy without the benchmark; figures will be low`);
      return busy;
    }
    if (waited % 10 === 0) log(`machine ${busy.toFixed(0)} % busy before the run; waiting for it to settle`);
  }
}

/** Other processes' CPU during a measurement, in % of one core, above which it is taken again. */
const DISTURBED_ABOVE = 25;
/** How many times at most leastDisturbed measures. */
export const ATTEMPTS = 3;

/**
 * Waits for a quiet machine and measures, up to 3 times while other processes took more than 25 % of a core during
 * the measurement (`restOf`): on 2 cores they take CPU from what is measured. Keeps the least disturbed run.
 */
export async function leastDisturbed<T>(what: string, measure: () => Promise<T>, restOf: (figures: T) => number): Promise<{ figures: T; attempt: number }> {
  let best: { figures: T; attempt: number; rest: number } | undefined;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    await waitForQuietMachine();
    const figures = await measure();
    const rest = restOf(figures);
    if (best === undefined || rest < best.rest) best = { figures, attempt, rest };
    if (rest <= DISTURBED_ABOVE) break;
    if (attempt < ATTEMPTS) log(`${what}: other work took ${rest.toFixed(0)} % of a core during this run: measuring again`);
    else log(`WARNING: ${what}: disturbed in all ${ATTEMPTS} runs; keeping the least disturbed (see the rest column)`);
  }
  return { figures: best!.figures, attempt: best!.attempt };
}

/** CPU model, cores, RAM, Node and OS; then `; <extra>` when given (databases, versions). */
export function describeMachine(extra?: string): string {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown";
  const ram = (os.totalmem() / 2 ** 30).toFixed(1);
  const line = `${cpu}, ${os.cpus().length} cores, ${ram} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()}`;
  return extra === undefined ? line : `${line}; ${extra}`;
}

/** A table's first line: the day and the machine it ran on, then `extra` (databases, versions). */
export const runOn = (extra?: string) => `Run on ${new Date().toISOString().slice(0, 10)}: ${describeMachine(extra)}.`;
