// Helpers shared by bench/pipeline.ts and bench/scheduling.ts: progress, CPU accounting from /proc,
// percentiles, the machine line and the generated blocks of docs/benchmarks.md.
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");
export const DOCS = path.join(ROOT, "docs/benchmarks.md");

export const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A Redis key prefix of the run's own, removed afterwards (test/redis.ts deletePrefix). */
export const benchPrefix = () => `vigil-bench-${randomBytes(4).toString("hex")}`;

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted: ArrayLike<number>, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

export const sortedCopy = (values: Iterable<number>) => Float64Array.from(values).sort();

// ---- CPU accounting (Linux /proc, clock ticks of 1/100 s) -----------------------------------

function processTicks(pid: number | string): { comm: string; ticks: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
  return { comm: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(") ")), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** Ticks of every process whose command name is `comm` and whose command line matches `filter`. */
function ticksOf(comm: string, filter?: (cmdline: string) => boolean): number {
  let ticks = 0;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
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

function machineTicks(): { busy: number; total: number } {
  const values = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - values[3]! - values[4]!, total };
}

/** CPU time over wall time in % of one core: this process, the named others, and the rest of the machine. */
export type Cpu = Record<string, number> & { self: number; rest: number };

/**
 * Starts measuring; the returned function gives the shares since then. `others` names other
 * processes to account for (e.g. { postgres: () => ticks of all postgres processes }).
 */
export function cpuMeter(others: Record<string, () => number>): () => Cpu {
  const snapshot = () => ({
    others: Object.fromEntries(Object.entries(others).map(([name, ticks]) => [name, ticks()])),
    self: process.cpuUsage(),
    machine: machineTicks(),
  });
  const before = snapshot();
  return () => {
    const after = snapshot();
    const elapsed = (after.machine.total - before.machine.total) / os.cpus().length;
    const share = (ticks: number) => Math.max(0, (100 * ticks) / elapsed);
    const self = process.cpuUsage(before.self);
    const cpu: Record<string, number> = { self: share((self.user + self.system) / 10_000) };
    for (const name of Object.keys(others)) cpu[name] = share(after.others[name]! - before.others[name]!);
    const busy = share(after.machine.busy - before.machine.busy);
    const accounted = Object.values(cpu).reduce((a, b) => a + b, 0);
    return { ...cpu, rest: Math.max(0, busy - accounted) } as Cpu;
  };
}

export const postgresTicks = () => ticksOf("postgres");
/** The Redis server listening on `port` (its command line names the port). */
export const redisTicks = (port: string) => () => ticksOf("redis-server", (cmdline) => cmdline.includes(`:${port}`));

/** Waits (up to a minute) for other work on the machine to pass; returns the busy % it settled at. */
export async function waitForQuietMachine(): Promise<number> {
  for (let waited = 0; ; waited++) {
    const before = machineTicks();
    await sleep(1_000);
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

// ---- the report ------------------------------------------------------------------------------

export function machine(databases: string): string {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown";
  const ram = (os.totalmem() / 2 ** 30).toFixed(1);
  return `${cpu}, ${os.cpus().length} cores, ${ram} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()}; ${databases}`;
}

/**
 * Replaces the generated block between `<!-- bench:<key>:start ... -->` and `<!-- bench:<key>:end -->`
 * in docs/benchmarks.md, keeping the rest of the file (which others edit too); when the block is
 * missing, appends a new section `## <title>` holding it at the end.
 */
export function writeDocsBlock(key: string, title: string, writer: string, generated: string): void {
  const startPattern = new RegExp(`<!-- bench:${key}:start[^>]*-->`);
  const end = `<!-- bench:${key}:end -->`;
  const block = `<!-- bench:${key}:start (written by ${writer}) -->\n${generated}\n${end}`;
  const current = existsSync(DOCS) ? readFileSync(DOCS, "utf8") : "# Benchmarks\n";
  const start = startPattern.exec(current);
  const endAt = current.indexOf(end);
  const next =
    start && endAt > start.index
      ? current.slice(0, start.index) + block + current.slice(endAt + end.length)
      : `${current.trimEnd()}\n\n## ${title}\n\n${block}\n`;
  writeFileSync(DOCS, next);
  log(`wrote the ${key} block of ${path.relative(ROOT, DOCS)}`);
}

export const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "n/a";
