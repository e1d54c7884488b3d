// Outage storm benchmark (issue 13): one real agent (apps/agent/dist/main.js, its in-flight limit
// derived as in production) in one region, monitors at 30 s scheduled by the control plane's
// CheckScheduler on a real Redis, targets on 127.0.0.1 in a process of their own
// (bench/outage-storm/targets.ts). Two phases in one run, each a warm-up period then BENCH_PERIODS
// measured periods:
//   baseline: BENCH_MONITORS healthy monitors (answer 200 after BENCH_HEALTHY_DELAY_MS);
//   storm:    the same healthy monitors beside BENCH_MONITORS more whose target never answers, so
//             each of their checks waits for its 10 s timeout (twice: the default retry of 3 allows a
//             second attempt within the period).
// From the results stream (decodeResult) it reports each check's start lag (startedAt minus the
// time it was due, in its result id), missed and doubled slots, and the healthy checks' latency in both phases;
// from the agent's /proc and /metrics its memory, sockets and event-loop delay; then the agent's
// ceiling: BENCH_DRAIN_JOBS healthy checks queued at once and drained.
// Usage: flock /tmp/vigil-bench.lock pnpm bench:outage-storm, with optional BENCH_MONITORS (1000),
// BENCH_PERIODS (4), BENCH_HEALTHY_DELAY_MS (20), BENCH_DRAIN_JOBS (20000), BENCH_AGENT_CONCURRENCY
// (unset: the agent derives its limit), VIGIL_TEST_REDIS_URL (else a Redis on port 6391 via
// scripts/ensure-redis.sh). Needs apps/agent built (pnpm -s build there).
// Progress goes to stderr; the results to stdout and, for the issue's scenario (1,000 + 1,000
// monitors, 2 measured periods or more, the derived limit), into docs/benchmarks.md.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { Redis } from "ioredis";
import { EVENT_LOOP_SAMPLE_MS, PERIODICITY_MS, parseMonitorConfig, type MonitorRecord, type RegionId } from "@vigil/domain";
import { connectRedis, decodeResult, resultsStreamKey, scheduleOffset, type CheckJobData, type ResultMessage } from "@vigil/queue";
import { CheckScheduler } from "@vigil/control-plane/scheduling/scheduler";
import { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";
import { startProbing, type ProbeSample } from "./outage-storm/probe";
import { assertBuilt } from "./support/built";
import { writeDocsBlock } from "./support/doc";
import { startAgent, type AgentProcess, type LogEntry } from "./support/agent";
import { type Cpu, cpuMeter, pidTicks, redisTicks, runOn } from "./support/machine";
import { benchPrefix, log, runBenchmark, sleep } from "./support/run";
import { commandLine, numberSetting, textSetting } from "./support/settings";
import { fmt, percentile, sortedCopy } from "./support/stats";
import { markdownTable, right } from "./support/table";

const MONITORS = numberSetting("MONITORS", 1_000);
const PERIODS = numberSetting("PERIODS", 4);
const HEALTHY_DELAY_MS = numberSetting("HEALTHY_DELAY_MS", 20);
const DRAIN_JOBS = numberSetting("DRAIN_JOBS", 20_000);
const AGENT_CONCURRENCY = textSetting("AGENT_CONCURRENCY");
const REGION: RegionId = "hostA-ams";
const PERIOD_MS = PERIODICITY_MS["30s"];
const TIMEOUT_MS = 10_000;
/** The last slots' hanging checks end up to two timeouts (and a back-off) after their slot. */
const GRACE_MS = 2 * TIMEOUT_MS + 5_000;
const PROBE_EVERY_MS = 2_000;

type Group = "healthy" | "hanging" | "drain";

/** One result as the benchmark keeps it. */
interface Run {
  group: Group;
  monitor: string;
  id: string;
  /** The slot in the scheduler's job id; NaN for jobs queued by hand. */
  slot: number;
  startedAt: number;
  latencyMs: number;
  status: ResultMessage["status"];
  attempts: number;
  /** When the benchmark read it from the stream. */
  readAt: number;
}

function monitors(group: "healthy" | "hanging", count: number, port: number): MonitorRecord[] {
  const now = new Date();
  return Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    kind: "http" as const,
    externalId: null,
    status: "active" as const,
    createdAt: now,
    updatedAt: now,
    // Defaults otherwise, as a user would leave them: retry 3, degradedAt half the timeout.
    config: parseMonitorConfig("http", {
      name: `${group} ${i}`,
      url: `http://127.0.0.1:${port}/${group === "healthy" ? "ok" : "hang"}/${i}`,
      periodicity: "30s",
      regions: [REGION],
      active: true,
      timeout: TIMEOUT_MS,
    }),
  }));
}

/** Reads the results stream from its start until stopped, sorting each result into its group. */
function collectResults(redisUrl: string, streamKey: string, groupOf: Map<string, Group>) {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const runs: Run[] = [];
  let stopped = false;
  const loop = (async () => {
    let last = "0";
    while (!stopped) {
      const reply = await redis.xread("COUNT", 5_000, "BLOCK", 500, "STREAMS", streamKey, last);
      const readAt = Date.now();
      for (const [, entries] of reply ?? []) {
        for (const [entryId, fields] of entries) {
          last = entryId;
          const result = decodeResult(fields);
          if (!result) continue;
          runs.push({
            group: groupOf.get(result.monitorId) ?? "drain",
            monitor: result.monitorId,
            id: result.id,
            // Scheduled results are `<region>:scheduled:<monitor id>:<due millis>` (scheduledResultId).
            slot: result.trigger === "scheduled" ? Number(result.id.slice(result.id.lastIndexOf(":") + 1)) : NaN,
            startedAt: Date.parse(result.startedAt),
            latencyMs: result.latencyMs,
            status: result.status,
            attempts: result.attempts,
            readAt,
          });
        }
      }
    }
  })();
  return {
    runs,
    async stop() {
      stopped = true;
      await loop;
      redis.disconnect();
    },
  };
}

interface Stats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function stats(values: number[]): Stats {
  const sorted = sortedCopy(values);
  return { n: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
}

interface GroupReport {
  expected: number;
  runs: number;
  missed: number;
  doubled: number;
  lag: Stats;
  lateOver1s: number;
  latency: Stats;
  statuses: Record<string, number>;
  attempts: Stats;
}

/** The runs of `records` whose slot falls in [from, to): against every slot k x period + offset there. */
function analyseGroup(runs: Run[], records: MonitorRecord[], from: number, to: number): GroupReport {
  const ids = new Set(records.map((record) => record.id));
  const inWindow = runs.filter((run) => ids.has(run.monitor) && run.slot >= from && run.slot < to);
  let expected = 0;
  for (const record of records) {
    const offset = scheduleOffset(record.id, PERIOD_MS);
    expected += Math.ceil((to - offset) / PERIOD_MS) - Math.ceil((from - offset) / PERIOD_MS);
  }
  const unique = new Set(inWindow.map((run) => run.id)).size;
  const lags = inWindow.map((run) => run.startedAt - run.slot);
  const statuses: Record<string, number> = {};
  for (const run of inWindow) statuses[run.status] = (statuses[run.status] ?? 0) + 1;
  return {
    expected,
    runs: inWindow.length,
    missed: expected - unique,
    doubled: inWindow.length - unique,
    lag: stats(lags),
    lateOver1s: lags.filter((lag) => lag > 1_000).length,
    latency: stats(inWindow.map((run) => run.latencyMs)),
    statuses,
    attempts: stats(inWindow.map((run) => run.attempts)),
  };
}

interface ProbeSummary {
  rssMaxMiB: number;
  rssMeanMiB: number;
  heapMaxMiB: number;
  openFilesMax: number;
  socketsMax: number;
  inFlightMax: number;
  inFlightMean: number;
  loopDelayP99MaxMs: number;
  loopDelayMaxMs: number;
}

function summarise(samples: ProbeSample[]): ProbeSummary {
  const max = (pick: (s: ProbeSample) => number) => Math.max(...samples.map(pick));
  return {
    rssMaxMiB: max((s) => s.rssBytes) / 2 ** 20,
    rssMeanMiB: samples.reduce((sum, s) => sum + s.rssBytes, 0) / samples.length / 2 ** 20,
    heapMaxMiB: max((s) => s.heapUsedBytes) / 2 ** 20,
    openFilesMax: max((s) => s.openFiles),
    socketsMax: max((s) => s.sockets),
    inFlightMax: max((s) => s.inFlight),
    inFlightMean: samples.reduce((sum, s) => sum + s.inFlight, 0) / samples.length,
    loopDelayP99MaxMs: max((s) => s.loopDelayP99Ms),
    loopDelayMaxMs: max((s) => s.loopDelayMaxMs),
  };
}

interface Phase {
  name: "baseline" | "storm";
  from: number;
  to: number;
  probe: ProbeSummary;
  cpu: Cpu;
}

async function startTargets(): Promise<{ port: number; pid: number; stop(): void }> {
  const child = fork(path.join(__dirname, "outage-storm/targets.ts"), {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, HEALTHY_DELAY_MS: String(HEALTHY_DELAY_MS) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`the targets' process exited (${code})`)));
  });
  return { port, pid: child.pid!, stop: () => child.disconnect() };
}

async function main(): Promise<void> {
  assertBuilt("apps/agent");
  const redisUrl = redisServerUrl();
  const prefix = benchPrefix();
  const redis = connectRedis(redisUrl, "vigil-bench-control-plane");
  const scheduler = new CheckScheduler(redis, prefix, [REGION]);
  const targets = await startTargets();
  const healthy = monitors("healthy", MONITORS, targets.port);
  const hanging = monitors("hanging", MONITORS, targets.port);
  const groupOf = new Map<string, Group>([...healthy.map((r) => [r.id, "healthy"] as const), ...hanging.map((r) => [r.id, "hanging"] as const)]);
  const results = collectResults(redisUrl, resultsStreamKey(prefix), groupOf);
  let agent: AgentProcess | undefined;

  try {
    const redisVersion = /redis_version:(\S+)/.exec(await redis.info("server"))?.[1] ?? "unknown";
    agent = await startAgent({ REGION, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONCURRENCY: AGENT_CONCURRENCY });
    const limit = agent.logs().find((entry) => entry.inFlightLimit !== undefined)!;
    log(`agent ${agent.child.pid} started: in-flight limit ${limit.inFlightLimit} (${limit.boundBy}); targets on port ${targets.port}`);
    const watched = { agent: pidTicks(agent.child.pid!), targets: pidTicks(targets.pid), redis: redisTicks(new URL(redisUrl).port) };

    const phases: Phase[] = [];
    const plan: [Phase["name"], MonitorRecord[]][] = [
      ["baseline", healthy],
      ["storm", [...healthy, ...hanging]],
    ];
    for (const [name, records] of plan) {
      const reconciled = await scheduler.reconcile(records);
      const from = Date.now() + PERIOD_MS;
      const to = from + PERIODS * PERIOD_MS;
      log(`${name}: ${records.length} monitors scheduled (${reconciled.upserted} upserted, ${reconciled.removed} removed); warm-up ${PERIOD_MS / 1000} s, then ${PERIODS} periods`);
      await sleep(from - Date.now());
      const probing = startProbing(agent.child.pid!, agent.healthPort, PROBE_EVERY_MS);
      const meter = cpuMeter(watched);
      for (let next = from + PERIOD_MS; next <= to; next += PERIOD_MS) {
        await sleep(next - Date.now());
        const last = probing.samples[probing.samples.length - 1];
        log(`${name}: ${(next - from) / 1000} s measured; ${results.runs.length} results so far; in flight ${last?.inFlight}, RSS ${fmt((last?.rssBytes ?? NaN) / 2 ** 20)} MiB, sockets ${last?.sockets}`);
      }
      const cpu = meter();
      phases.push({ name, from, to, probe: summarise(await probing.stop()), cpu });
    }
    log(`waiting ${GRACE_MS / 1000} s for the last slots' results`);
    await sleep(GRACE_MS);
    await scheduler.reconcile([]);
    const drain = await measureCeiling(scheduler, agent, healthy[0]!, results.runs, watched);

    const [baseline, storm] = phases as [Phase, Phase];
    const report = {
      limit,
      baseline: { phase: baseline, healthy: analyseGroup(results.runs, healthy, baseline.from, baseline.to) },
      storm: {
        phase: storm,
        healthy: analyseGroup(results.runs, healthy, storm.from, storm.to),
        hanging: analyseGroup(results.runs, hanging, storm.from, storm.to),
      },
      drain,
    };
    const markdown = render(report);
    process.stdout.write(`${markdown}\n`);
    if (MONITORS === 1_000 && PERIODS >= 2 && AGENT_CONCURRENCY === undefined) {
      writeDocsBlock(
        "outage-storm",
        "Outage storm (issue 13)",
        "bench/outage-storm.ts",
        [
          `${runOn(`Redis ${redisVersion}`)} Command: \`${commandLine("bench:outage-storm")}\` ` +
            `(${fmt(MONITORS)} healthy HTTP monitors at 30 s in ${REGION}, answering 200 after ${HEALTHY_DELAY_MS} ms; in the storm phase ` +
            `${fmt(MONITORS)} more whose target accepts and never answers, timeout ${TIMEOUT_MS / 1000} s, default retry 3; one agent ` +
            `(\`node apps/agent/dist/main.js\`, in-flight limit derived: ${limit.inFlightLimit}, bound by ${limit.boundBy}); ` +
            `each phase a warm-up period then ${PERIODS} measured periods, baseline first, in the same run).`,
          "",
          markdown,
        ].join("\n"),
      );
      log("wrote the outage-storm block of docs/benchmarks.md");
    } else {
      log("not the issue's scenario (1,000 + 1,000 monitors, 2 periods or more, derived limit): docs/benchmarks.md left as it was");
    }
  } finally {
    await scheduler.reconcile([]).catch(() => undefined);
    await agent?.stop();
    await results.stop();
    await scheduler.close();
    redis.disconnect();
    targets.stop();
    await deletePrefix(prefix);
    log(`deleted the keys under ${prefix}`);
  }
}

interface Drain {
  jobs: number;
  seconds: number;
  probe: ProbeSummary;
  cpu: Cpu;
  latency: Stats;
}

/** The agent's ceiling: DRAIN_JOBS checks of a healthy target queued at once (as on-demand checks), drained. */
async function measureCeiling(
  scheduler: CheckScheduler,
  agent: AgentProcess,
  template: MonitorRecord,
  runs: Run[],
  watched: Record<string, () => number>,
): Promise<Drain> {
  const running = async () => ((await (await fetch(`http://127.0.0.1:${agent.healthPort}/healthz`)).json()) as { running: number }).running;
  while ((await running()) > 0) await sleep(500);
  const before = runs.length;
  const drainId = randomUUID();
  log(`ceiling: queueing ${fmt(DRAIN_JOBS)} checks of a healthy target at once`);
  const probing = startProbing(agent.child.pid!, agent.healthPort, PROBE_EVERY_MS / 2);
  const meter = cpuMeter(watched);
  const started = Date.now();
  const data = { monitorId: drainId, kind: "http", config: template.config, trigger: "manual" } as CheckJobData;
  for (let from = 0; from < DRAIN_JOBS; from += 1_000) {
    await scheduler.queue(REGION).addBulk(
      Array.from({ length: Math.min(1_000, DRAIN_JOBS - from) }, () => ({ name: "check", data, opts: { removeOnComplete: true, removeOnFail: true } })),
    );
  }
  const drained = () => runs.slice(before).filter((run) => run.monitor === drainId);
  while (drained().length < DRAIN_JOBS) await sleep(200);
  const done = drained();
  const seconds = (Math.max(...done.map((run) => run.readAt)) - started) / 1000;
  const cpu = meter();
  const probe = summarise(await probing.stop());
  log(`ceiling: ${fmt(DRAIN_JOBS / seconds)} checks/s`);
  return { jobs: DRAIN_JOBS, seconds, probe, cpu, latency: stats(done.map((run) => run.latencyMs)) };
}

const ms = (value: number, digits = 0) => (Number.isFinite(value) ? `${value.toFixed(digits)}` : "-");
const lagCell = (s: Stats) => `${ms(s.p50)} / ${ms(s.p99)} / ${ms(s.max)} ms`;
const latencyCell = (s: Stats) => `${ms(s.p50, 2)} / ${ms(s.p90, 2)} / ${ms(s.p99, 2)} / ${ms(s.max, 2)} ms`;
const countsCell = (g: GroupReport) => `${fmt(g.runs)} of ${fmt(g.expected)}; ${fmt(g.missed)} missed, ${fmt(g.doubled)} doubled`;
const statusCell = (g: GroupReport) => Object.entries(g.statuses).map(([status, n]) => `${status} ${fmt(n)}`).join(", ");
const memoryCell = (p: ProbeSummary) => `${fmt(p.rssMaxMiB)} / ${fmt(p.rssMeanMiB)} / ${fmt(p.heapMaxMiB)} MiB`;
const loopCell = (p: ProbeSummary) => `${ms(p.loopDelayP99MaxMs, 1)} / ${ms(p.loopDelayMaxMs, 1)} ms`;
const cpuCell = (c: Cpu) => [c.agent, c.targets, c.redis, c.self, c.rest].map((v) => ms(v ?? NaN)).join(" / ");

function render(r: {
  limit: LogEntry;
  baseline: { phase: Phase; healthy: GroupReport };
  storm: { phase: Phase; healthy: GroupReport; hanging: GroupReport };
  drain: Drain;
}): string {
  const { baseline, storm, drain } = r;
  const worstLag = Math.max(storm.healthy.lag.max, storm.hanging.lag.max);
  const p50Shift = storm.healthy.latency.p50 - baseline.healthy.latency.p50;
  const p99Shift = storm.healthy.latency.p99 - baseline.healthy.latency.p99;
  const perCheckKiB =
    ((storm.phase.probe.rssMeanMiB - baseline.phase.probe.rssMeanMiB) * 1024) / (storm.phase.probe.inFlightMean - baseline.phase.probe.inFlightMean);
  const rows: [string, string, string][] = [
    ["Checks run (slots in the measured window): runs of expected, missed, doubled — healthy", countsCell(baseline.healthy), countsCell(storm.healthy)],
    ["— hanging", "-", countsCell(storm.hanging)],
    ["**Start lag** (startedAt − slot) p50 / p99 / max — healthy", lagCell(baseline.healthy.lag), `**${lagCell(storm.healthy.lag)}**`],
    ["— hanging", "-", `**${lagCell(storm.hanging.lag)}**`],
    ["Checks starting more than 1 s after their slot (healthy + hanging)", fmt(baseline.healthy.lateOver1s), fmt(storm.healthy.lateOver1s + storm.hanging.lateOver1s)],
    ["**Healthy checks' latency** p50 / p90 / p99 / max", latencyCell(baseline.healthy.latency), `**${latencyCell(storm.healthy.latency)}**`],
    ["Healthy checks' outcome", statusCell(baseline.healthy), statusCell(storm.healthy)],
    ["Hanging checks' outcome, attempts each (p50 / max)", "-", `${statusCell(storm.hanging)}; ${storm.hanging.attempts.p50} / ${storm.hanging.attempts.max}`],
    ["**Checks in flight** on the agent: max / mean", `${fmt(baseline.phase.probe.inFlightMax)} / ${fmt(baseline.phase.probe.inFlightMean)}`, `**${fmt(storm.phase.probe.inFlightMax)} / ${fmt(storm.phase.probe.inFlightMean)}**`],
    ["**Agent memory**: RSS max / RSS mean / V8 heap used max", memoryCell(baseline.phase.probe), `**${memoryCell(storm.phase.probe)}**`],
    ["**Agent sockets** / open files, max", `${fmt(baseline.phase.probe.socketsMax)} / ${fmt(baseline.phase.probe.openFilesMax)}`, `**${fmt(storm.phase.probe.socketsMax)} / ${fmt(storm.phase.probe.openFilesMax)}**`],
    [`Agent event-loop delay (prom-client's, sampled every ${EVENT_LOOP_SAMPLE_MS} ms): worst p99 of a 2-s scrape interval / max`, loopCell(baseline.phase.probe), loopCell(storm.phase.probe)],
    ["CPU % of one core: agent / targets / Redis / benchmark (scheduler, reader) / rest of the machine", cpuCell(baseline.phase.cpu), cpuCell(storm.phase.cpu)],
  ];
  const verdict = [
    `Goal: every check of both kinds starts within 1 s of its slot — worst start lag in the storm ${ms(worstLag)} ms, ` +
      `${worstLag <= 1_000 ? "**met**" : "**not met**"}; the healthy checks' latency within 2 ms of the baseline — p50 ${p50Shift >= 0 ? "+" : ""}${ms(p50Shift, 2)} ms, ` +
      `p99 ${p99Shift >= 0 ? "+" : ""}${ms(p99Shift, 2)} ms, ${Math.abs(p50Shift) <= 2 && Math.abs(p99Shift) <= 2 ? "**met**" : "**not met**"}.`,
    "",
    `Memory per extra check in flight (mean RSS growth from the baseline to the storm over the growth in mean checks in flight): about ${ms(perCheckKiB)} KiB.`,
    "",
    `**Ceiling of one agent**: ${fmt(drain.jobs / drain.seconds)} checks/s — ${fmt(drain.jobs)} checks of a healthy target (${HEALTHY_DELAY_MS} ms) queued at once ` +
      `and drained in ${drain.seconds.toFixed(1)} s; in flight max ${fmt(drain.probe.inFlightMax)}, RSS max ${fmt(drain.probe.rssMaxMiB)} MiB, ` +
      `event-loop delay worst p99 ${ms(drain.probe.loopDelayP99MaxMs, 1)} ms; their latency p50 / p99 ${ms(drain.latency.p50, 1)} / ${ms(drain.latency.p99, 1)} ms; ` +
      `CPU % (agent / targets / Redis / benchmark / rest) ${cpuCell(drain.cpu)}.`,
  ];
  return [
    ...markdownTable(["Measure", right("Baseline (healthy only)"), right("Storm (healthy + hanging)")], rows),
    "",
    ...verdict,
  ].join("\n");
}

runBenchmark(main);
