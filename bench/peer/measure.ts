// One system's run in bench/peer.ts: a warm-up, then the measured window, with the system's processes' CPU
// (/proc/<pid>/stat) and its Node processes' threads over the window, their memory at its end, the targets'
// requests (punctuality) and the latency the system reported of the window's checks.
import { type Cpu, cpuMeter, distinctResidentBytes, isRunning, pidTicks, pssBytes, rssBytes } from "../support/machine";
import { log, sleep } from "../support/run";
import { fmt, summarize } from "../support/stats";
import { ThreadMeter } from "../support/threads";
import { punctuality } from "./punctuality";
import type { Targets } from "./targets";

/** A check as the system reported it: its latency and what its target was asked to take. */
export interface Reported {
  delayMs: number;
  latencyMs: number;
}

export interface SystemUnderTest {
  /** Its processes by name, each as the ids of those running now (PostgreSQL's are many, one for Redis). */
  processes: Record<string, () => number[]>;
  /** Its Node processes, whose threads are accounted, by name. */
  threaded: Record<string, number>;
  /** After the window: what it reported of the checks that started in [from, to) (it may stop processes to read it); throws if any failed. */
  reported(from: number, to: number): Promise<Reported[]>;
  stop(): Promise<void>;
}

/** The running ones of `pid`: it, or none once it has ended. */
export const running = (pid: number) => (): number[] => (isRunning(pid) ? [pid] : []);

export interface Memory {
  processes: number;
  rssBytes: number;
  pssBytes: number;
}

export interface Figures {
  /** CPU % of one core over the window: each process of the system, and the targets, the benchmark and other work (rest). */
  cpu: Cpu;
  /** CPU ms of the system's processes over the requests the targets received in the window. */
  cpuMsPerCheck: number;
  /** At the window's end, by process. */
  memory: Record<string, Memory>;
  /** At the window's end, the pages in memory of all its processes, each counted once (null unless run as root). */
  distinctBytes: number | null;
  /** CPU % of one core by thread group, by Node process. */
  threads: Record<string, Map<string, number>>;
  /** Reported latency − the target's delay (ms). */
  latencyError: { p50: number; p99: number };
  reportedChecks: number;
  checks: number;
  interval: { p50: number; p99: number; max: number };
  missed: number;
}

const PROGRESS_EVERY_MS = 15_000;

export interface Timing {
  warmupMs: number;
  windowMs: number;
  periodMs: number;
}

/** Measures `system` (already probing `targets`), named `what` in the progress lines. */
export async function measure(what: string, system: SystemUnderTest, targets: Targets, { warmupMs, windowMs, periodMs }: Timing): Promise<Figures> {
  const names = Object.keys(system.processes);
  const ticksOfSystem = Object.fromEntries(names.map((name) => [name, () => system.processes[name]!().reduce((sum, pid) => sum + pidTicks(pid)(), 0)]));
  const watched = { ...ticksOfSystem, targets: pidTicks(targets.pid) };
  const systemShare = (cpu: Cpu) => names.reduce((sum, name) => sum + cpu[name]!, 0);

  /** Waits `ms`, checking every second that every process of the system still runs; `progress` every 15 s. */
  const runFor = async (ms: number, everySecond: () => void, progress: (elapsedMs: number) => Promise<string>) => {
    const start = Date.now();
    for (let next = 1_000; next <= ms; next += 1_000) {
      await sleep(start + next - Date.now());
      const ended = names.filter((name) => system.processes[name]!().length === 0);
      if (ended.length > 0) throw new Error(`${what}: ${ended.join(", ")} ended during the run`);
      everySecond();
      if (next % PROGRESS_EVERY_MS === 0 && next < ms) log(`${what}: ${await progress(next)}`);
    }
  };

  log(`${what}: warming up for ${warmupMs / 1000} s`);
  targets.reset();
  const warmupCpu = cpuMeter(watched);
  await runFor(warmupMs, () => {}, async (elapsed) => `warming up, ${elapsed / 1000} of ${warmupMs / 1000} s: ${fmt(await targets.count())} requests so far, the system at ${fmt(systemShare(warmupCpu()))} % of a core`);

  log(`${what}: measuring for ${windowMs / 1000} s`);
  const threadMeters = Object.entries(system.threaded).map(([name, pid]) => [name, new ThreadMeter(pid)] as const);
  const from = Date.now();
  const windowCpu = cpuMeter(watched);
  await runFor(
    windowMs,
    () => threadMeters.forEach(([, meter]) => meter.sample()),
    async (elapsed) => `measuring, ${elapsed / 1000} of ${windowMs / 1000} s: ${fmt(await targets.count())} requests since the start, the system at ${fmt(systemShare(windowCpu()))} % of a core`,
  );
  const cpu = windowCpu();
  const to = Date.now();
  const ticksPerCore = (to - from) / 10;
  const threads = Object.fromEntries(
    threadMeters.map(([name, meter]) => [name, new Map([...meter.ticksByGroup()].map(([group, ticks]) => [group, (100 * ticks) / ticksPerCore]))]),
  );
  const pidsByName = names.map((name) => [name, system.processes[name]!()] as const);
  const memory = Object.fromEntries(
    pidsByName.map(([name, pids]) => {
      const sum = (read: (pid: number) => number) => pids.reduce((total, pid) => total + read(pid), 0);
      return [name, { processes: pids.length, rssBytes: sum(rssBytes), pssBytes: sum(pssBytes) }];
    }),
  );
  const distinctBytes = distinctResidentBytes(pidsByName.flatMap(([, pids]) => pids));
  const arrivals = await targets.arrivals();
  const { received, intervalErrors, missed } = punctuality(arrivals, targets.urls.length, from, to, periodMs);
  if (received === 0) throw new Error(`${what}: the targets received no request in the window`);

  log(`${what}: reading the latencies it reported`);
  const reported = await system.reported(from, to);
  if (reported.length === 0) throw new Error(`${what}: it reported no check of the window`);
  const latencyError = summarize(reported.map((check) => check.latencyMs - check.delayMs));
  const interval = summarize(intervalErrors);
  return {
    cpu,
    cpuMsPerCheck: (systemShare(cpu) / 100) * (to - from) / received,
    memory,
    distinctBytes,
    threads,
    latencyError,
    reportedChecks: reported.length,
    checks: received,
    interval,
    missed,
  };
}
