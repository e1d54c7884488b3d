// Check engine benchmark (issue 3).
// 1. Throughput: the agent's check path (runCheck, retry 0, a fresh connection per check) against a
//    local target, beside a bare loop doing the same requests the cheapest way (node:http / net), at the
//    same concurrency in the same run, each loop in a worker thread of its own; for HTTP, TCP and gRPC
//    (a Health/Check call, beside bare node:http2). Goal: the agent reaches 80 % of the bare loop. Each
//    loop's CPU and memory (heap allocated) per check is given, so the kinds' costs read side by side.
// 2. Timing fidelity: runCheck's latencyMs and firstByteMs against a target that answers after a known
//    delay, at low load (1 in flight), at 64 in flight, and at a load that saturates the agent.
// Usage: pnpm bench:checks, with optional BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2),
// BENCH_CPU_PROF=<dir> (a V8 CPU profile of the loop per throughput segment; leaves the doc alone),
// BENCH_ONLY=HTTP|TCP|GRPC (that throughput pair only; leaves the doc alone).
// Measures packages/checks/dist, so build it first: pnpm exec turbo run build --filter=@vigil/checks
// (BENCH_CHECKS_DIST=<dir> measures another build of it instead, to try a change; leaves the doc alone).
// Progress goes to stderr; the tables to stdout and into docs/benchmarks.md.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { DOCS, ROOT, writeDocsBlock } from "./support/doc";
import { cpuAdd, cpuShares, type CpuSnapshot, leastDisturbed, runOn } from "./support/machine";
import { OTHER_ENGINE, httpJob, runCheck, AGENT_ENV } from "./checks/engine";
import type { LoopName, LoopWorkerData, SegmentRequest } from "./checks/loop-worker";
import { runLoop, type Run } from "./checks/run-loop";
import { percentile } from "./support/stats";
import { log, runBenchmark } from "./support/run";
import { commandLine, numberSetting } from "./support/settings";

const SECONDS = numberSetting("SECONDS", 10);
const WARMUP_SECONDS = numberSetting("WARMUP_SECONDS", 2);
const PROFILE_DIR = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
/** HTTP, TCP or GRPC: measures that throughput pair alone, to try a change quickly. */
const ONLY = process.env.BENCH_ONLY?.toUpperCase();
/** Checks in flight in the throughput runs (and the "high load" fidelity level). */
const CONCURRENCY = 64;
const DELAYS_MS = [50, 200];
/** Low-load fidelity runs last long enough for this many samples, so that their p99 is not simply the max. */
const LOW_LOAD_SAMPLES = 200;
/** Throughput runs alternate between the agent and the bare loop in segments of this length (see measurePair). */
const SEGMENT_SECONDS = 2;
const GOAL = 0.8;

/** CPU time over wall time in a window, in % of one core (so up to 100 x cores in all). */
interface Cpu {
  /** This process: the checks (or the bare loop) being measured. */
  bench: number;
  /** The child process serving the targets. */
  target: number;
  /** Whatever else ran: the kernel's share of loopback traffic, and other work on the machine. */
  rest: number;
}

function targetCpuShares(delta: CpuSnapshot): Cpu {
  const { self, target, rest } = cpuShares(delta);
  return { bench: self, target: target!, rest };
}

// ---- the target process ----------------------------------------------------------------------

interface Target {
  child: ChildProcess;
  httpPort: number;
  tcpPort: number;
  grpcPort: number;
}

async function startTarget(): Promise<Target> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "checks/target.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ports = await new Promise<{ httpPort: number; tcpPort: number; grpcPort: number }>((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`the target process exited (${code}) before listening`)));
  });
  return { child, ...ports };
}

async function stopTarget(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.disconnect();
  await exited;
}

// ---- the loops ---------------------------------------------------------------------------------

/** A loop in a worker thread of its own (bench/checks/loop-worker.ts says why). */
interface Loop {
  segment(seconds: number, profile?: string): Promise<Run>;
  stop(): Promise<number>;
}

function startLoop(target: Target, name: LoopName): Loop {
  const workerData: LoopWorkerData = {
    loop: name,
    httpPort: target.httpPort,
    tcpPort: target.tcpPort,
    grpcPort: target.grpcPort,
    targetPid: target.child.pid!,
    concurrency: CONCURRENCY,
  };
  // tsx's loader is per thread: the worker registers its require hook before loading the TypeScript.
  const file = path.join(__dirname, "checks/loop-worker.ts");
  const worker = new Worker(`require("tsx/cjs"); require(${JSON.stringify(file)});`, { eval: true, workerData });
  return {
    segment: (seconds, profile) =>
      new Promise((resolve, reject) => {
        const settle = (error: Error | undefined, run?: Run) => {
          worker.off("message", onMessage).off("error", settle);
          if (error) reject(error);
          else resolve(run!);
        };
        const onMessage = (run: Run) => settle(undefined, run);
        worker.on("message", onMessage).on("error", settle);
        worker.postMessage({ seconds, profile } satisfies SegmentRequest);
      }),
    stop: () => worker.terminate(),
  };
}

/** Each pair: the agent's path, and the bare loop it is compared with, which does the same network work the cheapest way. */
const PAIRS: { protocol: string; agent: LoopName; bare: LoopName; bareName: string }[] = [
  { protocol: "HTTP", agent: "runCheck HTTP", bare: "bare HTTP", bareName: "bare node:http (a connection per request)" },
  { protocol: "TCP", agent: "runCheck TCP", bare: "bare TCP", bareName: "bare net.connect + resetAndDestroy" },
  { protocol: "gRPC", agent: "runCheck gRPC", bare: "bare gRPC", bareName: "bare node:http2 Health/Check (a session per call)" },
];

// ---- throughput ------------------------------------------------------------------------------

interface Throughput {
  protocol: string;
  name: string;
  rate: number;
  completed: number;
  failed: number;
  cpu: Cpu;
  /** CPU time of this process per completed operation, in µs: less sensitive to other work on the machine than the rate. */
  cpuPerCheckUs: number;
  /** What the loop's thread allocated on its heap per completed operation, in KiB (the garbage it makes per check). */
  allocatedPerCheckKiB: number;
  /** The most its heap held at once, in MiB (what the checks in flight keep). */
  heapUsedMaxMiB: number;
  loopDelayP99: number;
}

/** One measured segment; with BENCH_CPU_PROF the loop's worker profiles it on its own, so that the profiles tell the loops apart. */
async function segment(loop: Loop, seconds: number, label: string): Promise<Run> {
  const profile = PROFILE_DIR === undefined ? undefined : path.join(PROFILE_DIR, `checks-${label}.cpuprofile`);
  const run = await loop.segment(seconds, profile);
  if (profile) log(`wrote ${profile}`);
  return run;
}

function summarise(protocol: string, name: string, runs: Run[]): Throughput {
  const completed = runs.reduce((sum, r) => sum + r.completed, 0);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  const failed = runs.reduce((sum, r) => sum + r.failed, 0);
  const firstError = runs.find((r) => r.firstError)?.firstError;
  const cpu = runs.map((r) => r.cpu).reduce(cpuAdd);
  if (failed > 0) log(`WARNING: ${name}: ${failed} failed, first: ${firstError}`);
  return {
    protocol,
    name,
    rate: completed / seconds,
    completed,
    failed,
    cpu: targetCpuShares(cpu),
    cpuPerCheckUs: (cpu.self * 10_000) / completed,
    allocatedPerCheckKiB: runs.reduce((sum, r) => sum + r.allocatedBytes, 0) / completed / 1024,
    heapUsedMaxMiB: Math.max(...runs.map((r) => r.heapUsedMaxBytes)) / 1024 / 1024,
    loopDelayP99: Math.max(...runs.map((r) => r.loopDelayP99)),
  };
}

/**
 * The agent and the bare loop take turns in short segments (agent, bare, bare, agent, agent, ...), so
 * that other work on this shared machine, which comes and goes within seconds, slows both alike and
 * the ratio stays meaningful even when the absolute rates do not.
 */
async function measurePair(target: Target, pair: (typeof PAIRS)[number]): Promise<[Throughput, Throughput]> {
  const slug = pair.protocol.toLowerCase();
  const loops = { agent: startLoop(target, pair.agent), bare: startLoop(target, pair.bare) };
  try {
    log(`${pair.protocol}: warm-up ${WARMUP_SECONDS} s each`);
    await loops.agent.segment(WARMUP_SECONDS);
    await loops.bare.segment(WARMUP_SECONDS);
    const segments = Math.max(1, Math.round(SECONDS / SEGMENT_SECONDS));
    const measure = async (): Promise<[Throughput, Throughput]> => {
      log(`${pair.protocol}: measuring ${SECONDS} s each (${CONCURRENCY} in flight, ${segments} segments each)`);
      const runs: { agent: Run[]; bare: Run[] } = { agent: [], bare: [] };
      for (let i = 0; i < 2 * segments; i++) {
        const which = i % 4 === 0 || i % 4 === 3 ? "agent" : "bare";
        runs[which].push(await segment(loops[which], SECONDS / segments, `${slug}-${which}-${runs[which].length + 1}`));
      }
      const a = summarise(pair.protocol, pair.agent, runs.agent);
      const b = summarise(pair.protocol, pair.bareName, runs.bare);
      log(`${pair.protocol}: agent ${a.rate.toFixed(0)}/s, bare ${b.rate.toFixed(0)}/s, ratio ${((100 * a.rate) / b.rate).toFixed(1)} %`);
      return [a, b];
    };
    return (await leastDisturbed(pair.protocol, measure, ([a, b]) => Math.max(a.cpu.rest, b.cpu.rest))).figures;
  } finally {
    await Promise.all([loops.agent.stop(), loops.bare.stop()]);
  }
}

// ---- timing fidelity -------------------------------------------------------------------------

interface Fidelity {
  delayMs: number;
  load: string;
  inFlight: number;
  rate: number;
  samples: number;
  latency: Float64Array;
  firstByte: Float64Array;
  failed: number;
  loopDelayP99: number;
  cpu: Cpu;
}

async function measureFidelity(target: Target, delayMs: number, load: string, inFlight: number, seconds: number): Promise<Fidelity> {
  const job = httpJob(target.httpPort, `/delay/${delayMs}`);
  const latency: number[] = [];
  const firstByte: number[] = [];
  log(`fidelity: ${delayMs} ms delay, ${load} load (${inFlight} in flight), ${seconds.toFixed(0)} s`);
  const run = await runLoop(inFlight, seconds, async () => {
    const outcome = await runCheck(job, AGENT_ENV);
    if (outcome.status === "error") throw new Error(outcome.error ?? "error");
    latency.push(outcome.latencyMs);
    firstByte.push(outcome.timing.firstByteMs!);
  }, target.child.pid!);
  if (run.failed > 0) log(`WARNING: ${run.failed} checks failed, first: ${run.firstError}`);
  return {
    delayMs,
    load,
    inFlight,
    rate: run.completed / run.seconds,
    samples: latency.length,
    latency: Float64Array.from(latency).sort(),
    firstByte: Float64Array.from(firstByte).sort(),
    failed: run.failed,
    loopDelayP99: run.loopDelayP99,
    cpu: targetCpuShares(run.cpu),
  };
}

// ---- report ----------------------------------------------------------------------------------


function throughputTable(all: Throughput[]): string {
  const rows = all.map((f) => {
    const bare = all.find((b) => b.protocol === f.protocol && b.name.startsWith("bare"))!;
    const share = f === bare ? "100 % (baseline)" : `**${((100 * f.rate) / bare.rate).toFixed(1)} %**`;
    const cpu = [f.cpu.bench, f.cpu.target, f.cpu.rest].map((v) => v.toFixed(0)).join(" / ");
    const memory = `${f.allocatedPerCheckKiB.toFixed(1)} | ${f.heapUsedMaxMiB.toFixed(1)}`;
    return `| ${f.protocol} | ${f.name} | ${f.rate.toFixed(0)} | ${share} | ${f.cpuPerCheckUs.toFixed(0)} | ${memory} | ${f.completed} | ${f.failed} | ${f.loopDelayP99.toFixed(1)} | ${cpu} |`;
  });
  return [
    `| Protocol | Loop | checks/s | Share of bare loop (goal ≥ ${GOAL * 100} %) | Bench CPU per check (µs) | Heap allocated per check (KiB) | Heap in use, max (MiB) | Completed | Failed | Event-loop delay p99 (ms) | CPU %: bench / target / rest |`,
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}

function fidelityTable(all: Fidelity[]): string {
  // Each figure with its error: measured − the target's delay.
  const cell = (sorted: Float64Array, p: number, delay: number) => {
    const value = p === 100 ? sorted[sorted.length - 1]! : percentile(sorted, p);
    const error = value - delay;
    return `${value.toFixed(1)} (${error >= 0 ? "+" : "−"}${Math.abs(error).toFixed(1)})`;
  };
  const rows = all.map((f) => {
    const figures = [f.latency, f.firstByte].flatMap((sorted) => [50, 99, 100].map((p) => cell(sorted, p, f.delayMs)));
    const cpu = [f.cpu.bench, f.cpu.target, f.cpu.rest].map((v) => v.toFixed(0)).join(" / ");
    return `| ${f.delayMs} | ${f.load} | ${f.inFlight} | ${f.rate.toFixed(0)} | ${f.samples} | ${f.failed} | ${figures.join(" | ")} | ${f.loopDelayP99.toFixed(1)} | ${cpu} |`;
  });
  return [
    "| Delay (ms) | Load | In flight | checks/s | Samples | Failed | latencyMs p50 (error) | p99 | max | firstByteMs p50 (error) | p99 | max | Event-loop delay p99 (ms) | CPU %: bench / target / rest |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}

async function main(): Promise<void> {
  const target = await startTarget();
  try {
    const throughput: Throughput[] = [];
    if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
    for (const pair of PAIRS.filter((p) => p.protocol.toUpperCase() === (ONLY ?? p.protocol.toUpperCase()))) throughput.push(...(await measurePair(target, pair)));
    if (ONLY) return log(`BENCH_ONLY=${ONLY}: throughput only; docs/benchmarks.md left as it was`);
    process.stdout.write(`${throughputTable(throughput)}\n\n`);

    // The load at which the agent is as busy as in the HTTP throughput run: as many checks waiting on
    // the delay as it completes in that time (Little's law), plus the throughput run's own 64.
    const saturation = throughput.find((t) => t.protocol === "HTTP" && !t.name.startsWith("bare"))!.rate;
    const fidelity: Fidelity[] = [];
    for (const delayMs of DELAYS_MS) {
      const levels: [string, number, number][] = [
        ["low", 1, Math.max(SECONDS, (LOW_LOAD_SAMPLES * delayMs) / 1000)],
        ["high", CONCURRENCY, SECONDS],
        ["saturating", CONCURRENCY + Math.ceil((saturation * delayMs) / 1000), SECONDS],
      ];
      for (const [load, inFlight, seconds] of levels) {
        const measure = () => measureFidelity(target, delayMs, load, inFlight, seconds);
        fidelity.push((await leastDisturbed(`fidelity ${delayMs} ms ${load}`, measure, (f) => f.cpu.rest)).figures);
      }
    }
    process.stdout.write(`${fidelityTable(fidelity)}\n`);

    if (PROFILE_DIR) return log("profiled run (slowed by the profiler): docs/benchmarks.md left as it was");
    if (OTHER_ENGINE) return log("another build of the check engine: docs/benchmarks.md left as it was");
    writeDocsBlock(
      "checks",
      "Check engine (issue 3)",
      "bench/checks.ts",
      [
        `${runOn()} Command: \`${commandLine("bench:checks")}\`.`,
        "",
        `Throughput and cost per check (${CONCURRENCY} in flight, a fresh connection per check, ${SECONDS} s per loop; CPU is the bench process's, memory the loop thread's heap, read off V8's record of its collections):`,
        "",
        throughputTable(throughput),
        "",
        "Timing fidelity (HTTP check against `GET /delay/N`; in brackets: measured − delay, in ms):",
        "",
        fidelityTable(fidelity),
      ].join("\n"),
    );
    log(`wrote ${path.relative(ROOT, DOCS)}`);
  } finally {
    await stopTarget(target.child);
  }
}

runBenchmark(main);
