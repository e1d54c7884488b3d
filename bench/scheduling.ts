// Scheduling benchmark (issues 3 and 13): 10,000 (or 100,000) active monitors at 30 s in one region,
// scheduled by CheckScheduler.reconcile as the control plane does from the database (each monitor a
// member of one of the period's slots, one BullMQ job scheduler per slot: packages/queue/src/slots.ts),
// run for BENCH_MINUTES by BullMQ Workers on the region's queue, each in a process of its own as agents
// are, that expand each slot's job as the agent does (runSlot) but run no checks: they record, per
// check, the lag between the time it was due and its start, and which monitor it was. Midway it reconciles again, as
// the control plane does periodically. Reports lag percentiles, missed/duplicate runs, how evenly the
// starts are spread, Redis memory per monitor and Redis' work per run (bench/scheduling/redis-work.ts);
// then, as context, the same workers' ceiling (plain jobs queued at once and drained).
// Usage: pnpm bench:scheduling, with optional BENCH_MINUTES (5), BENCH_MONITORS (10000), BENCH_WORKERS (1),
// BENCH_CONCURRENCY (100, per worker), BENCH_GRACE_SECONDS (10), BENCH_RECONCILE_AGAIN_SECONDS (150; 0 = never),
// BENCH_DRAIN_JOBS (20000), BENCH_REDIS_CONFIG (Redis settings for the run, e.g. "auto-aof-rewrite-percentage=800,save=";
// restored afterwards; such a run leaves docs/benchmarks.md alone), VIGIL_TEST_REDIS_URL
// (else a Redis on port 6391 via scripts/ensure-redis.sh).
// Progress goes to stderr; the results to stdout and, for the issue's scenarios (10,000 or 100,000
// monitors, at least 5 minutes), into docs/benchmarks.md.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { applyMigrations, openDatabase } from "@vigil/db";
import { PERIODICITY_MS, type MonitorRecord, type RegionId } from "@vigil/domain";
import { SLOT_LEAD_MS, SLOT_WIDTH_MS, checkQueueName, connectRedis, scheduleOffset, type CheckJobData } from "@vigil/queue";
import type { RedisConnection } from "@vigil/queue";
import { MonitorRepository } from "@vigil/control-plane/monitors/repository";
import { CheckScheduler } from "@vigil/control-plane/scheduling/scheduler";
import { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";
import { benchPrefix, log, runBenchmark, sleep } from "./support/run";
import { fmt, mean, percentile, sortedCopy } from "./support/stats";
import type { WorkerReply, WorkerRequest } from "./pipeline/check-worker";
import { seedActiveMonitors } from "./seed";
import type { ReconcilerReply, ReconcilerRequest } from "./pipeline/reconciler";
import { perRun, redisCounters, type RedisPerRun } from "./scheduling/redis-work";
import { writeDocsBlock } from "./support/doc";
import { type Cpu, cpuMeter, pidTicks, redisTicks, runOn } from "./support/machine";
import { commandLine, numberSetting, textSetting } from "./support/settings";

const MINUTES = numberSetting("MINUTES", 5);
const MONITORS = numberSetting("MONITORS", 10_000);
const CONCURRENCY = numberSetting("CONCURRENCY", 100);
/** Worker processes on the region's queue, as a region's agents (one did not keep up with 100,000 monitors at 30 s here). */
const WORKERS = numberSetting("WORKERS", 1);
/** Runs of slots up to the end of the window may start this much later and still count. */
const GRACE_MS = numberSetting("GRACE_SECONDS", 10) * 1000;
const DRAIN_JOBS = numberSetting("DRAIN_JOBS", 20_000);
/** Redis settings (CONFIG SET) for the run, as name=value pairs: to see what a server's configuration changes. */
const REDIS_CONFIG = (textSetting("REDIS_CONFIG") ?? "")
  .split(",")
  .filter(Boolean)
  .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)] as const);
const REGION: RegionId = "hostA-ams";
const PERIOD_MS = PERIODICITY_MS["30s"];
const PROGRESS_MS = 30_000;
/** How long the worker may take to catch up with the runs due during the first reconciliation. */
const SETTLE_LIMIT_MS = 5 * 60_000;
/**
 * startPipeline reconciles again every RECONCILE_INTERVAL_SECONDS (default 300 s), reading every
 * scheduler and writing those that differ: the benchmark does so once, this far into the window (0: not at all).
 */
const RECONCILE_AGAIN_MS = numberSetting("RECONCILE_AGAIN_SECONDS", 150) * 1000;

interface Interval {
  start: number;
  end: number;
  /** Schedulers the reconciliation wrote. */
  upserted?: number;
}

/** One run of a scheduled job, as the worker saw it. */
interface Runs {
  monitor: number[];
  slot: number[];
  start: number[];
  /** Plain jobs run, for the ceiling. */
  drained: number;
}

async function seed(): Promise<{ records: MonitorRecord[]; seconds: number }> {
  const started = performance.now();
  const db = await openDatabase({ kind: "pglite", dataDir: null });
  try {
    await applyMigrations(db);
    await seedActiveMonitors(db.prisma, MONITORS, { periodicity: "30s", regions: [REGION] });
    // What the control plane's reconciliation reads.
    const records = await new MonitorRepository(db.prisma).listActive();
    return { records, seconds: (performance.now() - started) / 1000 };
  } finally {
    await db.close();
  }
}

const usedMemory = async (redis: RedisConnection) => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1] ?? NaN);

function lagStats(runs: Runs, from = 0): { p50: number; p99: number; p999: number; max: number; n: number } {
  const lags = sortedCopy(runs.start.slice(from).map((start, i) => start - runs.slot[from + i]!));
  return { p50: percentile(lags, 50), p99: percentile(lags, 99), p999: percentile(lags, 99.9), max: lags[lags.length - 1] ?? NaN, n: lags.length };
}

async function main(): Promise<void> {
  log(`seeding ${MONITORS} active monitors (30 s, ${REGION}) in an in-memory PGlite`);
  const { records, seconds: seedSeconds } = await seed();
  log(`seeded and listed ${records.length} active monitors in ${seedSeconds.toFixed(1)} s`);

  const redisUrl = redisServerUrl();
  const redisPort = new URL(redisUrl).port;
  const prefix = benchPrefix();
  // Queue access for the progress lines and the ceiling run; the schedulers are made by the reconciler process.
  const redis = connectRedis(redisUrl, "vigil-bench-queues");
  const queues = new CheckScheduler(redis, prefix, [REGION]);
  const queue = queues.queue(REGION);
  const reconciler = await startReconciler({ redisUrl, prefix, records });
  const runs: Runs = { monitor: [], slot: [], start: [], drained: 0 };
  const workers: CheckWorker[] = [];
  /** The settings BENCH_REDIS_CONFIG changed, as they were: put back at the end. */
  const redisConfigBefore: [string, string][] = [];

  try {
    const redisVersion = /redis_version:(\S+)/.exec(await redis.info("server"))?.[1] ?? "unknown";
    for (const [name, value] of REDIS_CONFIG) {
      redisConfigBefore.push([name, ((await redis.config("GET", name)) as string[])[1] ?? ""]);
      await redis.config("SET", name, value);
      log(`Redis ${name} set to "${value}" for the run (was "${redisConfigBefore.at(-1)![1]}")`);
    }
    const memoryBefore = await usedMemory(redis);
    const monitorIds = records.map((record) => record.id);
    for (let i = 0; i < WORKERS; i++) workers.push(await startWorker({ redisUrl, prefix, monitorIds }, runs));

    // Schedules from the database, as the control plane does at start.
    log(`reconciling ${records.length} schedulers on ${checkQueueName(REGION)} (prefix ${prefix})`);
    const meter = cpuMeter({ workers: () => workers.reduce((sum, worker) => sum + pidTicks(worker.pid)(), 0), controlPlane: pidTicks(reconciler.pid), redis: redisTicks(redisPort) });
    const reconciled = await reconciler.call({ type: "reconcile" });
    const reconcileSeconds = reconciled.seconds!;
    const memoryScheduled = await usedMemory(redis);
    log(`reconciled in ${reconcileSeconds.toFixed(1)} s (${reconciled.upserted} upserted, ${reconciled.removed} removed)`);
    await caughtUp(queue);
    // A slot whose scheduler was created less than SLOT_LEAD_MS before the slot's start has its first run a period
    // later (the job for this one would have been due already): the window opens once no slot is in that case,
    // nor has a monitor due later in it.
    await sleep(SLOT_LEAD_MS + SLOT_WIDTH_MS);
    const windowStart = Date.now();
    const windowEnd = windowStart + MINUTES * 60_000;
    const redisBefore = { counters: await redisCounters(redis), runs: runs.start.length };
    log(`measuring for ${MINUTES} min`);

    // The periodic reconciliation, as startPipeline's timer runs it.
    let again: Interval | undefined;
    const reconciledAgain =
      RECONCILE_AGAIN_MS > 0 && RECONCILE_AGAIN_MS < windowEnd - windowStart
        ? sleep(RECONCILE_AGAIN_MS).then(async () => {
            const start = Date.now();
            log(`reconciling again (as startPipeline does every RECONCILE_INTERVAL_SECONDS)`);
            const reply = await reconciler.call({ type: "reconcile" });
            again = { start, end: Date.now(), upserted: reply.upserted };
            log(`reconciled again in ${((again.end - again.start) / 1000).toFixed(1)} s`);
          })
        : Promise.resolve();

    let reported = 0;
    for (let next = windowStart + PROGRESS_MS; next <= windowEnd + GRACE_MS; next += PROGRESS_MS) {
      await sleep(Math.max(0, Math.min(next, windowEnd + GRACE_MS) - Date.now()));
      const lag = lagStats(runs, reported);
      const counts = await queue.getJobCounts("delayed", "prioritized", "waiting", "active");
      log(
        `${((Date.now() - windowStart) / 1000).toFixed(0)} s: ${fmt(runs.start.length)} runs (${fmt(lag.n)} in the last 30 s), ` +
          `lag p50 ${lag.p50} ms, p99 ${lag.p99} ms, max ${lag.max} ms; queue ${JSON.stringify(counts)}`,
      );
      reported = runs.start.length;
    }
    if (Date.now() < windowEnd + GRACE_MS) await sleep(windowEnd + GRACE_MS - Date.now());
    await reconciledAgain;
    const cpu = meter();
    const redisWork = perRun(redisBefore.counters, await redisCounters(redis), runs.start.length - redisBefore.runs);
    const elapsed = Date.now() - windowStart;

    // Context: the same worker's ceiling, with plain jobs (scheduled priority) queued all at once.
    log(`worker ceiling: queueing ${DRAIN_JOBS} plain jobs at once`);
    const drainTemplate = records[0]!;
    const drainStarted = performance.now();
    for (let from = 0; from < DRAIN_JOBS; from += 1_000) {
      await queue.addBulk(
        Array.from({ length: Math.min(1_000, DRAIN_JOBS - from) }, () => ({
          name: "check",
          data: { monitorId: drainTemplate.id, kind: drainTemplate.kind, config: drainTemplate.config, trigger: "manual" } as CheckJobData,
          opts: { priority: 10, removeOnComplete: true, removeOnFail: true },
        })),
      );
    }
    while (runs.drained < DRAIN_JOBS) await sleep(10);
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    log(`worker ceiling: ${fmt(DRAIN_JOBS / drainSeconds)} jobs/s`);

    const report = analyse(runs, records, windowStart, windowEnd, elapsed, again);
    const markdown = render({
      ...report,
      cpu,
      redisWork,
      reconcileSeconds,
      reconciled: reconciled.upserted!,
      slots: reconciled.slots!,
      memory: { before: memoryBefore, scheduled: memoryScheduled },
      drain: { jobs: DRAIN_JOBS, seconds: drainSeconds },
    });
    process.stdout.write(`${markdown}\n`);
    const scenario = SCENARIOS[MONITORS];
    if (scenario && MINUTES >= 5 && REDIS_CONFIG.length === 0) {
      writeDocsBlock(
        scenario.key,
        "Scheduling (issue 3)",
        "bench/scheduling.ts",
        [
          `${runOn(`Redis ${redisVersion}, BullMQ ${bullmqVersion()}`)} Command: \`${commandLine("bench:scheduling")}\` ` +
            `(${fmt(MONITORS)} active HTTP monitors at 30 s in ${REGION}, ${WORKERS === 1 ? "one worker process" : `${WORKERS} worker processes`} with concurrency ${CONCURRENCY} that run${WORKERS === 1 ? "s" : ""} no check).`,
          "",
          markdown,
        ].join("\n"),
      );
      log(`wrote the ${scenario.key} block of docs/benchmarks.md`);
    } else {
      log("not one of the issue's scenarios (10,000 or 100,000 monitors, 5 minutes or more, the server's own Redis settings): docs/benchmarks.md left as it was");
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await reconciler.stop();
    for (const [name, value] of redisConfigBefore) await redis.config("SET", name, value);
    await queues.close();
    redis.disconnect();
    await deletePrefix(prefix);
    log(`deleted the keys under ${prefix}`);
  }
}

/**
 * Creating every scheduler at once (a first start, or a flushed Redis) makes the runs due meanwhile
 * wait behind the writes: the window starts once the worker has caught up with them (no more ready
 * jobs than it runs at a time).
 */
async function caughtUp(queue: ReturnType<CheckScheduler["queue"]>): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { prioritized, waiting } = await queue.getJobCounts("prioritized", "waiting");
    if (prioritized! + waiting! <= CONCURRENCY * WORKERS) break;
    if (Date.now() - started > SETTLE_LIMIT_MS) throw new Error(`the worker has not caught up ${SETTLE_LIMIT_MS / 1000} s after the reconciliation (${prioritized! + waiting!} ready jobs)`);
    log(`${prioritized! + waiting!} runs due during the reconciliation still waiting for the worker`);
    await sleep(1_000);
  }
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 1) log(`the worker caught up ${seconds.toFixed(0)} s after the reconciliation`);
}

interface CheckWorker {
  pid: number;
  /** Stops it (once; later calls wait for the same stop). */
  stop: () => Promise<void>;
}

/** An agent's side in a child process (bench/pipeline/check-worker.ts), adding what it runs to `runs`. */
async function startWorker(start: { redisUrl: string; prefix: string; monitorIds: string[] }, runs: Runs): Promise<CheckWorker> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "pipeline/check-worker.ts")], {
    cwd: path.join(__dirname, ".."),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    serialization: "advanced",
  });
  let stopped: (() => void) | undefined;
  const stoppedAt = new Promise<void>((resolve) => (stopped = resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`a worker process exited (${code})`)));
    child.on("message", (reply: WorkerReply) => {
      if (reply.type === "ready") resolve();
      else if (reply.type === "stopped") stopped!();
      else {
        // Pushed one by one: spreading 100,000s of values as arguments would overflow the stack.
        for (let i = 0; i < reply.start.length; i++) {
          runs.monitor.push(reply.monitor[i]!);
          runs.slot.push(reply.slot[i]!);
          runs.start.push(reply.start[i]!);
        }
        runs.drained += reply.drained;
      }
    });
  });
  child.send({ type: "start", region: REGION, concurrency: CONCURRENCY, ...start } satisfies WorkerRequest);
  await ready;
  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid!,
    stop: () => {
      if (child.exitCode === null && stopping === undefined) child.send({ type: "stop" } satisfies WorkerRequest);
      stopping ??= child.exitCode === null ? stoppedAt : Promise.resolve();
      return stopping;
    },
  };
}

/** The control plane's side in a child process (bench/pipeline/reconciler.ts), driven over IPC. */
async function startReconciler(start: { redisUrl: string; prefix: string; records: MonitorRecord[] }) {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "pipeline/reconciler.ts")], {
    cwd: path.join(__dirname, ".."),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // Structured clone, so the records arrive as they are (dates included).
    serialization: "advanced",
  });
  const call = (request: ReconcilerRequest) =>
    new Promise<Extract<ReconcilerReply, { ok: true }>>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the reconciler process exited (${code})`));
      child.once("exit", onExit);
      child.once("message", (reply: ReconcilerReply) => {
        child.off("exit", onExit);
        if (reply.ok) resolve(reply);
        else reject(new Error(`reconciler: ${reply.error}`));
      });
      child.send(request);
    });
  await call({ type: "start", redisUrl: start.redisUrl, prefix: start.prefix, defaultRegions: [REGION], records: start.records });
  return {
    pid: child.pid!,
    call,
    async stop() {
      if (child.exitCode !== null || !child.connected) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      await call({ type: "stop" }).catch(() => child.kill());
      await exited;
    },
  };
}

function bullmqVersion(): string {
  const manifest = path.join(__dirname, "../apps/control-plane/node_modules/bullmq/package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

interface LagStats {
  p50: number;
  p99: number;
  p999: number;
  max: number;
  n: number;
}

interface Report {
  elapsed: number;
  expected: number;
  counted: number;
  missed: number;
  duplicates: number;
  offSchedule: number;
  monitorsMissing: number;
  lag: LagStats;
  /** Runs whose slot fell during the periodic reconciliation. */
  lagDuring: LagStats;
  again: Interval | undefined;
  /** Starts per second of the 30-s period (start mod 30 s), averaged per period. */
  spread: { periodMax: number; periodMin: number; periodMean: number };
}

function analyse(runs: Runs, records: MonitorRecord[], windowStart: number, windowEnd: number, elapsed: number, again: Interval | undefined): Report {
  // Every slot k * 30 s + offset in (windowStart, windowEnd] must have run once.
  const offsets = records.map((record) => scheduleOffset(record.id, PERIOD_MS));
  const expectedSlots = offsets.map((offset) => {
    const first = Math.floor((windowStart - offset) / PERIOD_MS) + 1;
    const last = Math.floor((windowEnd - offset) / PERIOD_MS);
    return { first, last, count: Math.max(0, last - first + 1) };
  });
  const seen = records.map(() => new Map<number, number>());
  const inWindow: number[] = [];
  let offSchedule = 0;
  for (let i = 0; i < runs.slot.length; i++) {
    const m = runs.monitor[i]!;
    const slot = runs.slot[i]!;
    if (m < 0 || (((slot - offsets[m]!) % PERIOD_MS) + PERIOD_MS) % PERIOD_MS !== 0) {
      offSchedule++;
      continue;
    }
    // Runs due during the reconciliation and the catch-up after it are not measured.
    if (slot <= windowStart || slot > windowEnd) continue;
    seen[m]!.set(slot, (seen[m]!.get(slot) ?? 0) + 1);
    inWindow.push(i);
  }
  let expected = 0;
  let missed = 0;
  let duplicates = 0;
  let monitorsMissing = 0;
  expectedSlots.forEach(({ count }, m) => {
    expected += count;
    const ran = seen[m]!;
    missed += count - ran.size;
    if (ran.size < count) monitorsMissing++;
    for (const n of ran.values()) duplicates += n - 1;
  });
  const lags = sortedCopy(inWindow.map((i) => runs.start[i]! - runs.slot[i]!));
  const during = (i: number) => again !== undefined && runs.slot[i]! >= again.start && runs.slot[i]! <= again.end;
  const lagsDuring = sortedCopy(inWindow.filter(during).map((i) => runs.start[i]! - runs.slot[i]!));
  const stats = (sorted: Float64Array) => ({ p50: percentile(sorted, 50), p99: percentile(sorted, 99), p999: percentile(sorted, 99.9), max: sorted[sorted.length - 1] ?? NaN, n: sorted.length });
  const periodBins = new Array<number>(PERIOD_MS / 1000).fill(0);
  for (const i of inWindow) periodBins[Math.floor((runs.start[i]! % PERIOD_MS) / 1000)]!++;
  const periods = (windowEnd - windowStart) / PERIOD_MS;
  return {
    elapsed,
    expected,
    counted: inWindow.length,
    missed,
    duplicates,
    offSchedule,
    monitorsMissing,
    lag: stats(lags),
    lagDuring: stats(lagsDuring),
    again,
    spread: {
      periodMax: Math.max(...periodBins) / periods,
      periodMin: Math.min(...periodBins) / periods,
      periodMean: mean(periodBins) / periods,
    },
  };
}

/** The issue's scenarios, each with its block of docs/benchmarks.md. */
const SCENARIOS: Record<number, { key: string }> = { 10_000: { key: "scheduling" }, 100_000: { key: "scheduling-100k" } };

/** Milliseconds, or "-" where there were no runs to measure. */
const ms = (value: number) => (Number.isFinite(value) ? `${value}` : "-");

function render(r: Report & {
  cpu: Cpu;
  redisWork: RedisPerRun;
  reconcileSeconds: number;
  reconciled: number;
  slots: number;
  memory: { before: number; scheduled: number };
  drain: { jobs: number; seconds: number };
}): string {
  const needed = MONITORS / (PERIOD_MS / 1000);
  const actual = r.counted / ((r.elapsed - GRACE_MS) / 1000);
  const ceiling = r.drain.jobs / r.drain.seconds;
  const rows: [string, string][] = [
    [
      "Monitors scheduled (`CheckScheduler.reconcile` of the active monitors listed from the database): members written / slots' schedulers created",
      `${fmt(r.reconciled)} / ${fmt(r.slots)} in ${r.reconcileSeconds.toFixed(1)} s`,
    ],
    [
      "**Redis memory** for the slots' members, schedulers and next jobs (`used_memory` after the reconciliation minus before): in all / **per monitor**",
      `${((r.memory.scheduled - r.memory.before) / 2 ** 20).toFixed(1)} MiB / **${fmt((r.memory.scheduled - r.memory.before) / MONITORS)} bytes**`,
    ],
    [
      "**Missed runs** (expected slot without a run) of those expected in the window (times k x 30 s + offset, per monitor)",
      `**${fmt(r.missed)}** of ${fmt(r.expected)} (${fmt(r.monitorsMissing)} monitors affected)`,
    ],
    ["Duplicate runs (a slot run twice) / runs off the monitor's schedule", `${fmt(r.duplicates)} / ${fmt(r.offSchedule)}`],
    ["**Start lag** p50 / p99 / p99.9 / max (time due → check handed over), all runs in the window", `**${r.lag.p50} / ${r.lag.p99} / ${r.lag.p999} / ${r.lag.max} ms**`],
    ...(r.again
      ? ([
          [
            `Periodic reconciliation ${RECONCILE_AGAIN_MS / 1000} s into the window (reads all ${fmt(MONITORS)} monitors' places in their slots and the slots' schedulers, writes those that differ: ${fmt(r.again.upserted ?? 0)} here; startPipeline does it every 300 s by default)`,
            `${((r.again.end - r.again.start) / 1000).toFixed(1)} s`,
          ],
          [
            "Start lag of runs whose slot fell during that reconciliation: runs, p50 / p99 / max",
            `${fmt(r.lagDuring.n)}, ${ms(r.lagDuring.p50)} / ${ms(r.lagDuring.p99)} / ${ms(r.lagDuring.max)} ms`,
          ],
        ] as [string, string][])
      : []),
    ["Runs per second: needed / achieved in the window / worker ceiling (plain jobs, drained)", `${fmt(needed)} / ${fmt(actual)} / ${fmt(ceiling)} (${fmt(r.drain.jobs)} jobs in ${r.drain.seconds.toFixed(1)} s)`],
    [
      "**Spread over the 30-s period**: starts per second of the period (start mod 30 s, per period) max / mean / min",
      `**${r.spread.periodMax.toFixed(0)} / ${r.spread.periodMean.toFixed(0)} / ${r.spread.periodMin.toFixed(0)}** (max ${(r.spread.periodMax / r.spread.periodMean).toFixed(2)}x the mean)`,
    ],
    [
      "**Redis per scheduled check** (the server's counters over the window): main-thread CPU / BullMQ script calls, µs each (of which in the Redis commands they run) / the workers' blocking waits (BZPOPMIN)",
      `**${fmt(r.redisWork.mainCpuUs)} µs** / ${r.redisWork.scriptCalls.toFixed(2)} calls, ${fmt(r.redisWork.scriptCallUs)} µs each (${fmt(r.redisWork.scriptCommandsUs)} µs) / ${r.redisWork.waits.toFixed(2)}`,
    ],
    [
      `CPU % over the window: ${WORKERS === 1 ? "worker process" : `${WORKERS} worker processes`} (agents' side) / reconciler process (control plane's side) / Redis / bench process / rest`,
      [r.cpu.workers ?? NaN, r.cpu.controlPlane ?? NaN, r.cpu.redis ?? NaN, r.cpu.self, r.cpu.rest].map((v) => v.toFixed(0)).join(" / "),
    ],
  ];
  return ["| Measure | Value |", "|---|---:|", ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join("\n");
}

runBenchmark(main);
