// The check engine of bench/fidelity.ts alone, in this process as on a check thread: what one HTTP check costs the
// thread (bytes allocated, CPU time) and how often the thread collects garbage meanwhile, to try a change to
// packages/checks in seconds rather than in a whole bench:fidelity run. BENCH_CHECKS (3,000) checks at BENCH_RATE
// (300/s), round-robin over the benchmark's delays against its target (bench/fidelity/target.ts, a child process),
// after the agent's warm-up and 600 checks more. Each check gets a config of its own, as a check thread gets one per
// message. Allocation per check is the growth of the heap over the run, so it reads true only when no collection
// ran: give V8 a young generation larger than the run allocates (it says so when one ran).
// Usage: pnpm -s build && node --max-semi-space-size=512 --min-semi-space-size=512 --import tsx bench/fidelity/engine.ts
// (allocation), or without the V8 flags (collections as the agent has them); BENCH_CHECKS_DIST=<dir> measures
// another build of packages/checks. Prints one line of JSON.
import { spawn } from "node:child_process";
import path from "node:path";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import { parseMonitorConfig, type HttpMonitorConfig } from "@vigil/domain";
import { AGENT_ENV, runCheck, warmUpChecks } from "../checks/engine";

const CHECKS = Number(process.env.BENCH_CHECKS ?? 3_000);
const RATE = Number(process.env.BENCH_RATE ?? 300);
const DELAYS_MS = [10, 50, 200];

function startTarget(): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "target.ts")], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  child.unref();
  return new Promise((resolve) => child.once("message", (message: { port: number }) => resolve(message.port)));
}

/** `count` checks at RATE, each with a config of its own; resolves once all have ended. */
async function runChecks(configs: HttpMonitorConfig[], count: number): Promise<void> {
  const started = performance.now();
  const ended: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    ended.push(runCheck({ kind: "http", config: { ...configs[i % configs.length]! } }, AGENT_ENV));
    const wait = started + ((i + 1) * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((next) => setTimeout(next, wait));
  }
  await Promise.all(ended);
}

async function main(): Promise<void> {
  const port = await startTarget();
  const configs = DELAYS_MS.map((delayMs) =>
    parseMonitorConfig("http", { name: "engine", periodicity: "30s", retry: 0, timeout: 10_000, url: `http://127.0.0.1:${port}/delay/${delayMs}` }),
  );
  await warmUpChecks();
  await runChecks(configs, 600);
  const pauses: number[] = [];
  new PerformanceObserver((list) => list.getEntries().forEach((entry) => pauses.push(entry.duration))).observe({ entryTypes: ["gc"] });
  const heapBefore = getHeapStatistics().used_heap_size;
  const cpuBefore = process.cpuUsage();
  await runChecks(configs, CHECKS);
  const cpu = process.cpuUsage(cpuBefore);
  const heapGrowth = getHeapStatistics().used_heap_size - heapBefore;
  pauses.sort((a, b) => a - b);
  const report = {
    checks: CHECKS,
    rate: RATE,
    kbAllocatedPerCheck: pauses.length === 0 ? +(heapGrowth / CHECKS / 1024).toFixed(2) : "unknown: a collection ran",
    cpuUsPerCheck: Math.round((cpu.user + cpu.system) / CHECKS),
    collections: pauses.length,
    pauseMsP50: +(pauses[pauses.length >> 1] ?? 0).toFixed(2),
    pauseMsMax: +(pauses[pauses.length - 1] ?? 0).toFixed(2),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}

void main();
