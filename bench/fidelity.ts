// Measurement fidelity: how exactly the real agent reports a target's latency, beside Prometheus' blackbox_exporter
// probing the same targets at the same rate in the same run. The target (bench/fidelity/target.ts, a child process)
// answers `GET /delay/N?id=<request>` N ms after the request arrived (10, 50 and 200 ms). The truth is each request's
// phases as its packets show them on the loopback interface (bench/fidelity/wire.ts, tcpdump: run as root); the error
// of a figure is the reported one minus the wire's, for the agent and for blackbox_exporter alike.
// At each rate, two windows, each with blackbox_exporter probing the same URLs (bench/fidelity/blackbox.ts) at the rate
// beside the agent, so that both clients meet the same machine: first the agent's triggered checks (a job each, as the
// control plane queues "run now"), taking turns with the probes; then its scheduled checks (monitors at 30 s put in
// the region's slots by the control plane's CheckScheduler, the way an agent's load comes), with blackbox_exporter's
// probes then coming the way Prometheus' scrapes bring them (each target at an offset of its own in the period).
// Needs tcpdump and blackbox_exporter: apt-get install tcpdump prometheus-blackbox-exporter. Build first (pnpm build:
// the agent runs from apps/agent/dist).
// Settings: BENCH_RATES (10,100 checks/s), BENCH_SAMPLES (300 per delay and rate), BENCH_MONITORS (10 per delay),
// BENCH_SCHEDULED=0 (no scheduled checks), BENCH_AGENT_NICE=<n> and BENCH_AGENT_RT=<priority> (the agent under
// `nice -n` and `chrt --rr`, as an operator may tune it: deploy/README.md), BENCH_AGENT_NODE_ARGS (node flags for the
// agent), BENCH_NO_DOC=1 (print only); VIGIL_TEST_REDIS_URL, else a Redis on port 6391 (scripts/ensure-redis.sh).
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { PERIODICITY_MS, parseMonitorConfig, type HttpMonitorConfig, type MonitorRecord, type RegionId } from "@vigil/domain";
import { SLOT_LEAD_MS, checkQueueName, connectRedis, decodeResult, resultsStreamKey, type CheckJobData, type ResultMessage } from "@vigil/queue";
import { CheckScheduler } from "@vigil/control-plane/scheduling/scheduler";
import { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";
import { Blackbox, FIDELITY_CONFIG } from "./fidelity/blackbox";
import type { Truth } from "./fidelity/target";
import { WireCapture, type WirePhases } from "./fidelity/wire";
import { startAgent, type AgentProcess } from "./support/agent";
import { assertBuilt } from "./support/built";
import { Queue } from "bullmq";
import { writeDocsBlock } from "./support/doc";
import { type Cpu, cpuMeter, pidTicks, redisTicks, runOn, threadScheduling } from "./support/machine";
import { benchPrefix, log, runBenchmark, sleep } from "./support/run";
import { commandLine, listSetting, numberSetting, textSetting } from "./support/settings";
import { differenceInterval, fmt, signed, summarize } from "./support/stats";
import { markdownTable, right } from "./support/table";

const REGION: RegionId = "hostA-ams";
const DELAYS_MS = [10, 50, 200];
const RATES = listSetting("RATES", [10, 100]);
const SAMPLES = numberSetting("SAMPLES", 300);
const MONITORS = numberSetting("MONITORS", 10);
const SCHEDULED = textSetting("SCHEDULED") !== "0";
const AGENT_NICE = textSetting("AGENT_NICE");
const AGENT_RT = textSetting("AGENT_RT");
const AGENT_NODE_ARGS = textSetting("AGENT_NODE_ARGS");
const PERIOD_MS = PERIODICITY_MS["30s"];
const PEER = "blackbox_exporter";

/** One check as a client reported it: the agent, or blackbox_exporter. */
interface Sample {
  /** The request's id at the target. */
  id: string;
  delayMs: number;
  /** Index of the request among the target's requests with its id: a scheduled monitor's runs share one. */
  run: number;
  /** The request's phases on the wire (the truth); set once the pass is done. */
  wire?: WirePhases;
  latencyMs: number;
  connectMs: number | null;
  firstByteMs: number | null;
  transferMs: number | null;
  status: ResultMessage["status"];
}

const sampleOf = (id: string, delayMs: number, result: ResultMessage, run = 0): Sample => ({
  id,
  delayMs,
  run,
  latencyMs: result.latencyMs,
  connectMs: result.timing.connectMs,
  firstByteMs: result.timing.firstByteMs,
  transferMs: result.timing.transferMs,
  status: result.status,
});

// ---- processes -------------------------------------------------------------------------------

/** The target's process, its port, and the capture of its packets. */
interface Target {
  child: ChildProcess;
  port: number;
  wire: WireCapture;
}

async function startTarget(): Promise<Target> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "fidelity/target.ts")], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve(message.port));
    child.once("exit", (code) => reject(new Error(`target exited with ${code}`)));
  });
  return { child, port, wire: await WireCapture.start(port) };
}

/** Sets each sample's truth from its packets, found by what the target kept of its request (which it then forgets). */
async function setTruths({ child, wire }: Target, samples: Sample[]): Promise<void> {
  // The capture's last packets are a flush away.
  await sleep(250);
  child.send("truths");
  const reply = await new Promise<{ truths: [string, Truth[]][] }>((resolve) => child.once("message", resolve));
  const truths = new Map(reply.truths);
  wire.refresh();
  for (const sample of samples) {
    const truth = truths.get(sample.id)?.[sample.run];
    if (truth === undefined) throw new Error(`the target kept no time for request ${sample.id} (run ${sample.run})`);
    sample.wire = wire.phasesOf(truth.clientPort, truth.arrivedAt);
  }
}

/** How the agent's threads ran, as the kernel shows them (/proc/<pid>/task/<tid>/stat): the same for all unless tuned apart. */
function describeAgentScheduling(pid: number): string {
  const ways = new Set(
    [...threadScheduling(pid).values()].map(({ policy, rtPriority, nice }) =>
      rtPriority === 0 ? `the ordinary scheduler at nice ${nice}` : `the real-time scheduler ${policy === 1 ? "SCHED_FIFO" : "SCHED_RR"} at priority ${rtPriority}, nice ${nice}`,
    ),
  );
  return `The agent's threads ran under ${[...ways].join("; some under ")}.`;
}

// ---- one pass --------------------------------------------------------------------------------

/** A check is degraded above this: 20 ms beyond what the target is asked to take. */
const degradedAtOf = (delayMs: number) => delayMs + 20;

const targetUrl = (port: number, delayMs: number, requestId: string) => `http://127.0.0.1:${port}/delay/${delayMs}?id=${requestId}`;

/** A monitor of the target's `delayMs` answer whose requests the target keeps under `requestId`. */
const httpConfig = (port: number, delayMs: number, name: string, requestId: string): HttpMonitorConfig =>
  parseMonitorConfig("http", {
    name,
    url: targetUrl(port, delayMs, requestId),
    periodicity: "30s",
    regions: [REGION],
    retry: 0,
    timeout: 10_000,
    degradedAt: degradedAtOf(delayMs),
  });

/**
 * Calls `start(i)` at `times[i]` (performance.now(), ascending); resolves once every call has. A moment less than
 * half a millisecond away is started at once: a timer waits a whole millisecond at least, which would part calls
 * due together.
 */
async function startAt(times: number[], start: (i: number) => Promise<void>): Promise<void> {
  const running: Promise<void>[] = [];
  for (const [i, time] of times.entries()) {
    const wait = time - performance.now();
    if (wait >= 0.5) await sleep(wait);
    running.push(start(i));
  }
  await Promise.all(running);
}

/**
 * Calls `start(i)` `count` times at `rate` a second, each at a random moment of its own 1/rate slot; resolves once
 * every call has. Evenly spaced, the two clients' requests would be a fixed interval apart, and where that interval
 * divides a target's delay (50 ms at 10 checks/s) each answer to one client would arrive as the other's request
 * starts: at random moments both meet the other's work alike.
 */
function paced(rate: number, count: number, start: (i: number) => Promise<void>): Promise<void> {
  const began = performance.now();
  return startAt(Array.from({ length: count }, (_, i) => began + ((i + Math.random()) * 1000) / rate), start);
}

/**
 * The moments Prometheus would scrape `targets` targets every `PERIOD_MS` for `periods` periods from `began`: each
 * target at a fixed offset in the period of its own, which Prometheus takes from a hash of the target (and Vigil's
 * scheduler from a hash of the monitor's id), so that over many targets the offsets are spread at random and
 * some scrapes fall together. Ascending, with the target of each.
 */
function scrapeMoments(targets: number, periods: number, began: number): { time: number; target: number }[] {
  const offsets = Array.from({ length: targets }, () => Math.random() * PERIOD_MS);
  const moments = offsets.flatMap((offset, target) => Array.from({ length: periods }, (_, period) => ({ time: began + period * PERIOD_MS + offset, target })));
  return moments.sort((a, b) => a.time - b.time);
}

/** `SAMPLES` of each delay, in a random order (Fisher-Yates). */
function shuffledDelays(): number[] {
  const delays = Array.from({ length: SAMPLES * DELAYS_MS.length }, (_, i) => DELAYS_MS[i % DELAYS_MS.length]!);
  for (let i = delays.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [delays[i], delays[j]] = [delays[j]!, delays[i]!];
  }
  return delays;
}

/**
 * The agent's triggered checks and blackbox_exporter's probes of the same URLs, each at `rate` and taking turns
 * (agent, peer, agent, ..., each at a random moment of its slot: paced) in one window, so that both meet the same
 * machine: `SAMPLES` of each per delay, each client's delays in a shuffled order of its own. In one shared order
 * each answer of one client would come at a fixed lag from the same step of the other's (the agent's 50 ms answers
 * as the benchmark reads the peer's 200 ms probes).
 */
async function runSideBySide(queue: Queue, results: ResultReader, blackbox: Blackbox, target: Target, rate: number): Promise<{ agent: Sample[]; peer: Sample[] }> {
  const pending = new Map<string, { jobId: string; delayMs: number }>();
  const peer: Sample[] = [];
  const [agentDelays, peerDelays] = [shuffledDelays(), shuffledDelays()];
  await paced(2 * rate, 2 * SAMPLES * DELAYS_MS.length, async (tick) => {
    const i = Math.floor(tick / 2);
    if (tick % 2 === 1) return probe(blackbox, target, peerDelays[i]!, peer);
    const delayMs = agentDelays[i]!;
    const monitor = Math.floor(i / DELAYS_MS.length) % MONITORS;
    const jobId = `fidelity-${randomUUID()}`;
    const config = httpConfig(target.port, delayMs, `fidelity ${delayMs} ms #${monitor}`, jobId);
    const job: CheckJobData = { monitorId: `00000000-0000-4000-8000-${String(delayMs * 1000 + monitor).padStart(12, "0")}`, kind: "http", config, trigger: "manual" };
    pending.set(`${REGION}:${jobId}`, { jobId, delayMs });
    await queue.add("check", job, { jobId, removeOnComplete: true, removeOnFail: true });
  });
  const agent: Sample[] = [];
  for await (const result of results.until(() => pending.size === 0)) {
    const job = pending.get(result.id);
    if (!job) continue;
    pending.delete(result.id);
    agent.push(sampleOf(job.jobId, job.delayMs, result));
  }
  await setTruths(target, [...agent, ...peer]);
  return { agent, peer };
}

/** One blackbox_exporter probe of the target's `delayMs` answer, added to `samples`. */
async function probe(blackbox: Blackbox, target: Target, delayMs: number, samples: Sample[]): Promise<void> {
  const id = `peer-${randomUUID()}`;
  samples.push({ id, delayMs, run: 0, ...(await blackbox.probeHttp(targetUrl(target.port, delayMs, id))), status: "success" });
}

/**
 * Schedules as many monitors at 30 s as make `rate` checks a second, round-robin over the delays, and measures as
 * many periods of them as make `SAMPLES` checks per delay (at least one): the checks due once the reconciliation that
 * scheduled them all has ended (putting thousands of new monitors in their slots at once is no steady state), so a
 * stretch of steady load. Meanwhile blackbox_exporter probes as many targets of the same URLs as often, each at an
 * offset of its own in the period as Prometheus scrapes it (scrapeMoments), so that both meet the same machine with
 * load of the same shape.
 */
async function runScheduled(scheduler: CheckScheduler, results: ResultReader, blackbox: Blackbox, target: Target, rate: number): Promise<{ agent: Sample[]; peer: Sample[] }> {
  const now = new Date();
  const monitors = new Map<string, { delayMs: number; runs: number; measured: number }>();
  const records = Array.from({ length: (rate * PERIOD_MS) / 1000 }, (_, i): MonitorRecord => {
    const id = randomUUID();
    const delayMs = DELAYS_MS[i % DELAYS_MS.length]!;
    monitors.set(id, { delayMs, runs: 0, measured: 0 });
    const config = httpConfig(target.port, delayMs, `fidelity scheduled ${i}`, id);
    return { id, kind: "http", externalId: null, status: "active", createdAt: now, updatedAt: now, config };
  });
  const periods = Math.max(1, Math.ceil((SAMPLES * DELAYS_MS.length) / records.length));
  const wanted = records.length * periods;
  const samples: Sample[] = [];
  const peer: Sample[] = [];
  try {
    await scheduler.reconcile(records);
    const from = Date.now();
    const moments = scrapeMoments(records.length, periods, performance.now());
    const probing = startAt(
      moments.map((m) => m.time),
      (i) => probe(blackbox, target, DELAYS_MS[moments[i]!.target % DELAYS_MS.length]!, peer),
    );
    for await (const result of results.until(() => samples.length === wanted)) {
      const monitor = monitors.get(result.monitorId);
      if (!monitor) continue;
      const run = monitor.runs++;
      // Scheduled results are `<region>:scheduled:<monitor id>:<due millis>` (scheduledResultId).
      const dueAt = Number(result.id.slice(result.id.lastIndexOf(":") + 1));
      if (dueAt < from || monitor.measured === periods) continue;
      monitor.measured++;
      samples.push(sampleOf(result.monitorId, monitor.delayMs, result, run));
    }
    await probing;
  } finally {
    await scheduler.reconcile([]);
  }
  // A slot whose job had started runs its checks still: let them end before the next pass is measured.
  await sleep(SLOT_LEAD_MS + Math.max(...DELAYS_MS) + 1_000);
  await setTruths(target, [...samples, ...peer]);
  return { agent: samples, peer };
}

/** The results stream read from where the benchmark started (the prefix is the run's own). */
class ResultReader {
  private last = "0";
  constructor(
    private readonly redis: ReturnType<typeof connectRedis>,
    private readonly key: string,
  ) {}

  async *until(done: () => boolean): AsyncGenerator<ResultMessage> {
    while (!done()) {
      const reply = (await this.redis.xread("COUNT", 1000, "BLOCK", 30_000, "STREAMS", this.key, this.last)) as [string, [string, string[]][]][] | null;
      if (!reply) throw new Error("no result for 30 s");
      for (const [id, fields] of reply[0]![1]) {
        this.last = id;
        const result = decodeResult(fields);
        if (result) yield result;
      }
    }
  }
}

// ---- figures ---------------------------------------------------------------------------------

const PHASES = ["latencyMs", "connectMs", "firstByteMs", "transferMs"] as const;

/** A figure's errors against the wire, each. */
const errorValues = (samples: Sample[], phase: keyof WirePhases = "latencyMs") =>
  samples.flatMap((s) => (s[phase] === null ? [] : [s[phase] - s.wire![phase]]));

/** A figure's errors against the wire. */
const errorsOf = (samples: Sample[], phase: keyof WirePhases = "latencyMs") => summarize(errorValues(samples, phase));

/** One client's checks at one rate, with the CPU of the window they were made in. */
interface Pass {
  client: string;
  /** The window's name: the triggered checks' or the scheduled checks'; each has the peer's probes beside the agent's. */
  window: "triggered" | "scheduled";
  rate: number;
  samples: Sample[];
  cpu: Cpu;
}

const isPeer = (pass: Pass) => pass.client.startsWith(PEER);

/** A window's two passes: the agent's checks and blackbox_exporter's probes beside them. */
const windowPasses = (window: Pass["window"], rate: number, { agent, peer }: { agent: Sample[]; peer: Sample[] }, cpu: Cpu): Pass[] => [
  { client: `Vigil, ${window}`, window, rate, samples: agent, cpu },
  { client: `${PEER}, beside the ${window} checks`, window, rate, samples: peer, cpu },
];

/**
 * A client's row at one rate, over all delays: errors of every phase, whether its latencyMs error meets the goal
 * (p50 and p99 no larger than the peer's in the same window) and how far its p99 is from the peer's with the
 * interval chance alone gives that difference, failures and wrongly degraded checks, CPU.
 */
function detailRow(pass: Pass, peer: Pass): string[] {
  const { client, rate, samples, cpu } = pass;
  const degraded = samples.filter((s) => s.status === "degraded");
  // Degraded though the exchange on the wire was no slower than degradedAt: wrongly.
  const wrongly = degraded.filter((s) => s.wire!.latencyMs <= degradedAtOf(s.delayMs)).length;
  const [latency, ...otherPhases] = PHASES.map((phase) => errorsOf(samples, phase));
  const phaseCell = (e: { p50: number; p99: number; max: number }) => `${signed(e.p50)} / ${signed(e.p99)} / ${signed(e.max)}`;
  let goal = "(peer)";
  let p99Cell = "(peer)";
  if (!isPeer(pass)) {
    const peerLatency = errorsOf(peer.samples);
    goal = Math.abs(latency!.p50) <= Math.abs(peerLatency.p50) && Math.abs(latency!.p99) <= Math.abs(peerLatency.p99) ? "yes" : "**no**";
    const chance = differenceInterval(errorValues(samples), errorValues(peer.samples), 99);
    p99Cell = `${signed(latency!.p99 - peerLatency.p99)} (${signed(chance.low)} to ${signed(chance.high)})`;
  }
  const cpuCell = [cpu.agent!, cpu.peer!, cpu.target!, cpu.redis!, cpu.self, cpu.capture!, cpu.rest].map((v) => fmt(v)).join(" / ");
  const degradedCell = isPeer(pass) ? "n/a" : `${degraded.length} (${wrongly})`;
  return [String(rate), client, String(samples.length), String(samples.filter((s) => s.status === "error").length), degradedCell, phaseCell(latency!), goal, p99Cell, ...otherPhases.map(phaseCell), cpuCell];
}

// ---- main ------------------------------------------------------------------------------------

runBenchmark(async () => {
  assertBuilt("apps/agent", "packages/checks", "packages/queue", "packages/domain");
  const blackbox = await Blackbox.start(FIDELITY_CONFIG);
  const redisUrl = redisServerUrl();
  const prefix = benchPrefix();
  const redis = connectRedis(redisUrl, "bench");
  const queue = new Queue(checkQueueName(REGION), { connection: redis, prefix });
  const scheduler = new CheckScheduler(redis, prefix, [REGION]);
  const results = new ResultReader(redis, resultsStreamKey(prefix));
  const target = await startTarget();
  let agent: AgentProcess | undefined;
  try {
    // The target's first requests parse and answer on cold code: warm it before anything is measured.
    for (let i = 0; i < 200; i++) await (await fetch(`http://127.0.0.1:${target.port}/delay/0`)).text();
    agent = await startAgent(
      { REGION, REDIS_URL: redisUrl, REDIS_PREFIX: prefix },
      {
        wrapper: [...(AGENT_NICE ? ["nice", "-n", AGENT_NICE] : []), ...(AGENT_RT ? ["chrt", "--rr", AGENT_RT] : [])],
        nodeArgs: AGENT_NODE_ARGS?.split(" ").filter(Boolean),
      },
    );
    log(`agent ${agent.child.pid} started; blackbox_exporter ${blackbox.pid}; target on port ${target.port}`);
    const watched = {
      agent: pidTicks(agent.child.pid!),
      peer: pidTicks(blackbox.pid),
      target: pidTicks(target.child.pid!),
      redis: redisTicks(new URL(redisUrl).port),
      capture: pidTicks(target.wire.pid),
    };
    const details: string[][] = [];
    for (const rate of RATES) {
      log(`${rate}/s: triggered checks beside ${PEER}`);
      let meter = cpuMeter(watched);
      const passes = windowPasses("triggered", rate, await runSideBySide(queue, results, blackbox, target, rate), meter());
      if (SCHEDULED) {
        log(`${rate}/s: scheduled checks beside ${PEER}`);
        meter = cpuMeter(watched);
        passes.push(...windowPasses("scheduled", rate, await runScheduled(scheduler, results, blackbox, target, rate), meter()));
      }
      details.push(...passes.map((pass) => detailRow(pass, passes.find((p) => p.window === pass.window && isPeer(p))!)));
    }
    const block = [
      `${runOn(`blackbox_exporter ${Blackbox.version()}`)} Command: \`${commandLine("bench:fidelity")}\`. ${describeAgentScheduling(agent.child.pid!)}`,
      "",
      `Errors against the wire over all delays (${DELAYS_MS.join(", ")} ms), p50 / p99 / max (ms; in each window, the triggered checks' and then the scheduled checks', ${PEER} probes the same URLs at the same rate beside the agent); a check is degraded above its target's delay + 20 ms, wrongly when its exchange on the wire took no longer:`,
      "",
      ...markdownTable(
        [
          right("Checks/s"),
          "Client",
          right("Samples"),
          right("Failed"),
          right("Degraded (wrongly)"),
          `${PHASES[0]} error`,
          `p50 and p99 no larger than ${PEER}'s in the same window (goal)`,
          `p99 − ${PEER}'s p99 (95 % interval by chance)`,
          ...PHASES.slice(1).map((p) => `${p} error`),
          right("CPU % of one core: agent / blackbox_exporter / target / Redis / benchmark / tcpdump / rest"),
        ],
        details,
      ),
    ].join("\n");
    process.stdout.write(`${block}\n`);
    writeDocsBlock("fidelity", "Measurement fidelity", "bench/fidelity.ts", block);
  } finally {
    await agent?.stop();
    target.child.disconnect();
    await target.wire.stop();
    await blackbox.stop();
    await scheduler.close();
    await queue.close();
    redis.disconnect();
    await deletePrefix(prefix);
  }
});
