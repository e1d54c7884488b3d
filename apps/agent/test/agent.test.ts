import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { REGION_IDS, parseMonitorConfig, type RegionId } from "@vigil/domain";
import {
  SLOT_JOB,
  SLOT_LEAD_MS,
  SLOT_WIDTH_MS,
  checkQueueName,
  decodeResult,
  resultsStreamKey,
  scheduledResultId,
  slotAt,
  slotJobOffset,
  slotMembersKey,
  slotSchedulerId,
  type CheckJobData,
  type ResultMessage,
  type Slot,
  type SlotJobData,
  type SlotMember,
} from "@vigil/queue";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { SCHED_OTHER, threadScheduling } from "../../../test/thread-scheduling";
import { runAgentToExit, startAgent, type AgentProcess } from "./support/processes";
import { RedisProcess } from "../../../test/redis-process";
import { startCollector, type Collector } from "./support/collector";
import { decodeMetricsRequest } from "./support/otlp";
import { closedPort, heldHttpTarget, slowHttpTarget, tcpTarget, type Target } from "./support/targets";
import { startGrpcHealthServer } from "../../../packages/checks/test/support/grpc-health-server";

/**
 * The built agent against a real Redis. Every key of this file lives under its
 * own prefix, so test files and runs never see each other's queues or results.
 */
const redisUrl = redisServerUrl();
const prefix = testPrefix();
const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
const queues = new Map<RegionId, Queue<CheckJobData | SlotJobData>>();
const agents: AgentProcess[] = [];
const targets: Target[] = [];

const agentEnv = (region: RegionId | undefined, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  REGION: region,
  REDIS_URL: redisUrl,
  REDIS_PREFIX: prefix,
  CONCURRENCY: "5",
  LOG_LEVEL: "info",
  ...extra,
});

async function agent(region: RegionId, extra: NodeJS.ProcessEnv = {}): Promise<AgentProcess> {
  const started = await startAgent(agentEnv(region, extra));
  agents.push(started);
  return started;
}

async function target<T extends Target>(started: Promise<T>): Promise<T> {
  const value = await started;
  targets.push(value);
  return value;
}

function queue(region: RegionId): Queue<CheckJobData | SlotJobData> {
  let existing = queues.get(region);
  if (!existing) {
    existing = new Queue<CheckJobData | SlotJobData>(checkQueueName(region), { connection: redis, prefix });
    queues.set(region, existing);
  }
  return existing;
}

const tcpJob = (monitorId: string, port: number, fields: Record<string, unknown> = {}): CheckJobData => ({
  monitorId,
  kind: "tcp",
  trigger: "manual",
  config: parseMonitorConfig("tcp", { name: monitorId, uri: `127.0.0.1:${port}`, periodicity: "1m", retry: 0, timeout: 2000, ...fields }),
});

const httpJob = (monitorId: string, port: number): CheckJobData => ({
  monitorId,
  kind: "http",
  trigger: "scheduled",
  config: parseMonitorConfig("http", {
    name: monitorId,
    url: `http://127.0.0.1:${port}/`,
    periodicity: "1m",
    retry: 0,
    timeout: 10_000,
  }),
});

/** Adds a job the way the control plane does: removed from Redis once it is done. */
const addJob = (region: RegionId, jobId: string, data: CheckJobData) =>
  queue(region).add("check", data, { jobId, removeOnComplete: true, removeOnFail: true });

async function results(): Promise<ResultMessage[]> {
  const entries = await redis.xrange(resultsStreamKey(prefix), "-", "+");
  return entries.map(([, fields]) => decodeResult(fields)).filter((message): message is ResultMessage => message !== null);
}

const resultsFor = async (monitorIds: string[]) =>
  (await results()).filter((message) => monitorIds.includes(message.monitorId));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const waitForResult = (monitorId: string, timeoutMs?: number) =>
  waitFor(`the result of ${monitorId}`, async () => (await resultsFor([monitorId]))[0], timeoutMs);

/** The vigil.check.duration point a collector received for a monitor, once it has. */
const checkDurationPoint = (collector: Collector, monitorId: string) =>
  collector.exports
    .flatMap((sent) => decodeMetricsRequest(sent).resourceMetrics)
    .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
    .filter((metric) => metric.name === "vigil.check.duration")
    .flatMap((metric) => metric.histogram?.dataPoints ?? [])
    .find((candidate) => candidate.attributes.some((a) => a.key === "vigil.monitor.id" && a.value === monitorId));

/** Result ids of the checks an agent finished, from its debug logs. */
const checksDoneBy = (process: AgentProcess) =>
  process.logs().filter((entry) => entry.msg === "check done").map((entry) => entry.resultId as string);

beforeAll(async () => {
  await redis.connect();
});

afterAll(async () => {
  await Promise.all(agents.map((started) => started.stop("SIGKILL")));
  await Promise.all(targets.map((started) => started.close()));
  await Promise.all([...queues.values()].map((existing) => existing.close()));
  await redis.quit();
  await deletePrefix(prefix);
});

describe("configuration", () => {
  it("refuses an unknown region and lists the valid ones", async () => {
    const run = await runAgentToExit(agentEnv(undefined, { REGION: "mars" }));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('"mars" is not a region');
    for (const region of REGION_IDS) expect(run.stderr).toContain(region);
  });

  it("refuses OTLP over gRPC, naming the variable and what it takes", async () => {
    const run = await runAgentToExit(agentEnv("hostA-ams", { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported: use http/protobuf or http/json');
  });

  it("leaves its threads' scheduling to the operator: none is made real-time or reniced", async () => {
    const started = await agent("hostA-ams", { CHECK_THREADS: "2" });
    try {
      const pid = started.child.pid!;
      const asStarted = threadScheduling().get(String(process.pid))!.nice;
      const threads = [...threadScheduling(pid).values()];
      expect(started.logs().find((entry) => entry.msg === "check threads started and warmed up on loopback")).toMatchObject({ threads: 2 });
      // Its main thread, the two check threads and Node's own.
      expect(threads.length).toBeGreaterThan(3);
      expect(threads.filter((thread) => thread.policy !== SCHED_OTHER || thread.rtPriority !== 0 || thread.nice !== asStarted)).toEqual([]);
    } finally {
      await started.stop();
    }
  });

  it("refuses to start without a region", async () => {
    const run = await runAgentToExit(agentEnv(undefined));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("REGION: is required");
    expect(run.stderr).toContain("hostC-asia-southeast1");
  });
});

describe("one agent", () => {
  const region: RegionId = "hostA-ams";
  let running: AgentProcess;

  beforeAll(async () => {
    running = await agent(region);
  });
  afterAll(() => running.stop());

  it("logs its start and answers health probes", async () => {
    const started = running.logs().find((entry) => entry.msg === "agent started");
    expect(started).toMatchObject({ region, concurrency: 5, queue: "checks-hostA-ams" });
    const response = await fetch(`http://127.0.0.1:${running.healthPort}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", region, running: 0 });
  });

  it("consumes only its own region's queue", async () => {
    const listener = await target(tcpTarget());
    await addJob("hostB-fra", "fra-1", tcpJob("region-fra", listener.port));
    await addJob(region, "ams-1", tcpJob("region-ams", listener.port));

    await waitForResult("region-ams");
    // Give a wrongly subscribed agent time to take the other job too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const found = await resultsFor(["region-ams", "region-fra"]);
    expect(found.map((message) => message.id)).toEqual(["hostA-ams:ams-1"]);
    expect(await queue("hostB-fra").getWaitingCount()).toBe(1);
  });

  it("publishes a TCP check's result with a stable id", async () => {
    const listener = await target(tcpTarget());
    await addJob(region, "tcp-ok-1", tcpJob("tcp-ok", listener.port));

    const message = await waitForResult("tcp-ok");
    expect(message).toMatchObject({
      id: "hostA-ams:tcp-ok-1",
      monitorId: "tcp-ok",
      region,
      trigger: "manual",
      status: "success",
      attempts: 1,
      error: null,
      reason: null,
      statusCode: null,
    });
    expect(typeof message.latencyMs).toBe("number");
    expect(new Date(message.startedAt).toISOString()).toBe(message.startedAt);
    expect(listener.hits()).toBeGreaterThanOrEqual(1);
    // Done jobs leave nothing behind in the queue.
    await waitFor("the job to be removed", async () => (await queue(region).getJob("tcp-ok-1")) === undefined);
  });

  it("reports a closed port as an error", async () => {
    const port = await closedPort();
    await addJob(region, "tcp-closed-1", tcpJob("tcp-closed", port));

    const message = await waitForResult("tcp-closed");
    expect(message).toMatchObject({ id: "hostA-ams:tcp-closed-1", status: "error", attempts: 1, reason: "connect" });
    expect(message.error).toEqual(expect.any(String));
  });
});

describe("scheduled checks", () => {
  const region: RegionId = "hostA-sin";
  let running: AgentProcess;

  beforeAll(async () => {
    running = await agent(region);
  });
  afterAll(() => running.stop());

  /** Writes a 30 s slot's scheduler as the control plane does. */
  const writeScheduler = (on: RegionId, slot: Slot) =>
    queue(on).upsertJobScheduler(
      slotSchedulerId(slot),
      { every: 30_000, offset: slotJobOffset(slot) || 30_000 },
      { name: SLOT_JOB, data: { slot: slot.id }, opts: { removeOnComplete: true, removeOnFail: true } },
    );

  /** The first start on the grid at or after `at`. */
  const onGrid = (at: number) => Math.ceil(at / SLOT_WIDTH_MS) * SLOT_WIDTH_MS;
  /** The start of the first slot whose job is due at least `aheadMs` from now. */
  const startAhead = (aheadMs: number) => onGrid(Date.now() + aheadMs + SLOT_LEAD_MS);
  const slotStarting = (start: number) => slotAt("30s", (start % 30_000) / SLOT_WIDTH_MS);

  /**
   * Schedules the 30 s slot that starts at `start` (on the grid), as the control plane
   * does, with `members` in its hash; returns the slot's start and the id of its job.
   */
  async function scheduleSlot(members: Record<string, SlotMember>, start: number, on: RegionId = region): Promise<{ start: number; jobId: string }> {
    const slot = slotStarting(start);
    const key = slotMembersKey(on, slot.id, prefix);
    if (Object.keys(members).length > 0) await redis.hset(key, Object.fromEntries(Object.entries(members).map(([id, member]) => [id, JSON.stringify(member)])));
    const scheduled = await writeScheduler(on, slot);
    expect((await queue(on).getJobScheduler(slotSchedulerId(slot)))?.next).toBe(start - SLOT_LEAD_MS);
    return { start, jobId: scheduled!.id! };
  }

  it("runs each monitor of a slot at its own moment, never before, with ids of the time it was due", async () => {
    const listener = await target(tcpTarget());
    const members = Object.fromEntries(
      [0, 40, 95].map((atMs, i) => [`slot-${i}`, { atMs, check: { ...tcpJob(`slot-${i}`, listener.port), trigger: "scheduled" } } satisfies SlotMember]),
    );
    const { start } = await scheduleSlot(members, startAhead(500));

    const found = await waitFor("3 results", async () => {
      const current = await resultsFor(Object.keys(members));
      return current.length >= 3 && current;
    });
    for (const [monitorId, member] of Object.entries(members)) {
      const message = found.find((result) => result.monitorId === monitorId)!;
      expect(message).toMatchObject({ id: scheduledResultId(region, monitorId, start + member.atMs), trigger: "scheduled", status: "success" });
      expect(Date.parse(message.startedAt)).toBeGreaterThanOrEqual(start + member.atMs);
    }
    expect(listener.hits()).toBe(3);
  });

  it("completes the run of a slot left without monitors", async () => {
    const { start } = await scheduleSlot({}, startAhead(200));
    await waitFor("the empty slot's run to be done", async () => Date.now() > start && (await queue(region).getJobCounts("active", "prioritized", "wait", "failed")).active === 0);
    expect(await queue(region).getJobCounts("failed", "completed")).toEqual({ failed: 0, completed: 0 });
  });

  it("runs a run whose scheduler was written again while its job waited for an agent, with that run's due times", async () => {
    const idle: RegionId = "hostA-bom";
    const listener = await target(tcpTarget());
    const { start } = await scheduleSlot({ rewritten: { atMs: 20, check: { ...tcpJob("rewritten", listener.port), trigger: "scheduled" } } }, startAhead(200), idle);
    await new Promise((resolve) => setTimeout(resolve, start + 1_000 - Date.now()));
    // As a reconciliation does: BullMQ replaces the waiting job by one written now, its delay clamped at 0.
    const rewritten = await writeScheduler(idle, slotStarting(start));
    expect(rewritten?.opts.delay).toBe(0);
    await agent(idle);
    const [message] = await waitFor("its result", async () => {
      const current = await resultsFor(["rewritten"]);
      return current.length > 0 && current;
    });
    expect(message).toMatchObject({ id: scheduledResultId(idle, "rewritten", start + 20), trigger: "scheduled", status: "success" });
  });

  it("leaves slots' jobs in the queue while every place for a check is taken", async () => {
    const busy: RegionId = "hostA-syd";
    await agent(busy, { CONCURRENCY: "3" });
    const slow = await target(slowHttpTarget(4_000));
    const member = (monitorId: string): SlotMember => ({ atMs: 0, check: { ...httpJob(monitorId, slow.port), trigger: "scheduled" } });
    const first = ["busy-1", "busy-2", "busy-3", "busy-4"];
    const { start: firstStart } = await scheduleSlot(Object.fromEntries(first.map((id) => [id, member(id)])), startAhead(200), busy);
    // Due once the first slot's checks have started (its start, SLOT_LEAD_MS after its job) and hold all three
    // places for 4 s. The worker's one fetch already under way takes the first of them; the other stays in the
    // queue, where another agent could take it.
    const { start: next } = await scheduleSlot({ "waits-1": member("waits-1") }, onGrid(firstStart + SLOT_LEAD_MS + 500), busy);
    const { start: last, jobId: lastJob } = await scheduleSlot({ "waits-2": member("waits-2") }, onGrid(next + 1), busy);

    await new Promise((resolve) => setTimeout(resolve, last - SLOT_LEAD_MS + 300 - Date.now()));
    expect(await resultsFor(first)).toEqual([]);
    expect(await queue(busy).getJobState(lastJob)).not.toBe("active");
    const found = await waitFor("6 results", async () => {
      const current = await resultsFor([...first, "waits-1", "waits-2"]);
      return current.length >= 6 && current;
    }, 30_000);
    expect(found.every((message) => message.status === "success")).toBe(true);
  }, 40_000);
});

describe("the SSRF guard", () => {
  it("fails a check of a loopback target as blocked when the agent does not allow private targets", async () => {
    const region: RegionId = "hostA-arn";
    const listener = await target(tcpTarget());
    const guarded = await agent(region, { ALLOW_PRIVATE_TARGETS: "false", ALLOWED_TARGET_CIDRS: "10.0.0.0/8" });
    expect(guarded.logs().find((entry) => entry.msg === "agent started")).toMatchObject({
      addressPolicy: { allowPrivateTargets: false, allowedTargetCidrs: ["10.0.0.0/8"] },
    });
    await addJob(region, "blocked-1", tcpJob("tcp-blocked", listener.port));

    const message = await waitForResult("tcp-blocked");
    expect(message).toMatchObject({
      status: "error",
      reason: "blocked",
      error: "refused to connect to 127.0.0.1: loopback address; set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it",
    });
    expect(listener.hits()).toBe(0);
    await guarded.stop();
  });

  it("refuses to start with a range it cannot read, naming the variable", async () => {
    const run = await runAgentToExit(agentEnv("hostA-ams", { ALLOWED_TARGET_CIDRS: "10.0.0.0/8,office-lan" }));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("ALLOWED_TARGET_CIDRS: office-lan: must be CIDR ranges such as 10.1.0.0/16 or fd00::/8, comma-separated");
  });
});

describe("OpenTelemetry export", () => {
  it("exports a check's metrics to its monitor's collector, and publishes results while a collector is down", async () => {
    const region: RegionId = "hostC-us-east4";
    const running = await agent(region, { OTEL_METRIC_EXPORT_INTERVAL: "200" });
    const collector = await startCollector();
    const listener = await target(tcpTarget());
    const gone = await closedPort();
    try {
      const exported = { endpoint: collector.origin, headers: [{ key: "authorization", value: "Bearer secret-token" }] };
      await addJob(region, "otel-1", tcpJob("otel-tcp", listener.port, { openTelemetry: exported }));
      await addJob(region, "otel-2", tcpJob("otel-unreachable", listener.port, { openTelemetry: { endpoint: `http://127.0.0.1:${gone}` } }));

      const result = await waitForResult("otel-tcp");
      expect((await waitForResult("otel-unreachable")).status).toBe("success");
      const point = await waitFor("the check's metrics at the collector", async () =>
        checkDurationPoint(collector, "otel-tcp"),
      );
      expect(collector.exports[0]!.headers.authorization).toBe("Bearer secret-token");
      expect(collector.exports[0]!.headers["content-type"]).toBe("application/x-protobuf");
      expect(Object.fromEntries(point.attributes.map((a) => [a.key, a.value]))).toMatchObject({
        "vigil.region": region,
        "vigil.monitor.kind": "tcp",
        "vigil.check.status": "success",
        "vigil.check.trigger": "manual",
      });
      expect(point.count).toBe(1);
      expect(point.sum).toBeCloseTo(result.latencyMs / 1000, 9);
      // The failed exports are logged, without the monitor's headers.
      await waitFor("a logged export failure", async () => running.logs().some((entry) => entry.component === "opentelemetry"));
      expect(JSON.stringify(running.logs())).not.toContain("secret-token");
    } finally {
      await collector.close();
    }
  });

  it("runs a gRPC health check, and labels its metrics with the kind grpc in OTLP and at /metrics", async () => {
    const region: RegionId = "hostC-europe-west4";
    const running = await agent(region, { OTEL_METRIC_EXPORT_INTERVAL: "200" });
    const collector = await startCollector();
    const health = await startGrpcHealthServer();
    try {
      health.set("", "NOT_SERVING");
      const job: CheckJobData = {
        monitorId: "grpc-otel",
        kind: "grpc",
        trigger: "manual",
        config: parseMonitorConfig("grpc", { name: "grpc", uri: health.uri, periodicity: "1m", retry: 0, timeout: 2000, openTelemetry: { endpoint: collector.origin } }),
      };
      await addJob(region, "grpc-otel-1", job);
      expect(await waitForResult("grpc-otel")).toMatchObject({ status: "error", reason: "assertion", error: "health status NOT_SERVING, expected SERVING" });
      const point = await waitFor("the check's metrics at the collector", async () =>
        checkDurationPoint(collector, "grpc-otel"),
      );
      expect(Object.fromEntries(point.attributes.map((a) => [a.key, a.value]))).toMatchObject({
        "vigil.region": region,
        "vigil.monitor.kind": "grpc",
        "vigil.check.status": "error",
        "error.type": "assertion",
      });
      const metrics = await (await fetch(`http://127.0.0.1:${running.healthPort}/metrics`)).text();
      expect(metrics).toMatch(new RegExp(`^vigil_checks_total\\{[^}]*kind="grpc"[^}]*status="error"[^}]*\\} 1$`, "m"));
    } finally {
      await collector.close();
      await health.close();
    }
  });

  it("sends the metrics it still holds when it stops", async () => {
    const region: RegionId = "hostC-us-west2";
    const running = await agent(region, { OTEL_METRIC_EXPORT_INTERVAL: "600000" });
    const collector = await startCollector();
    const listener = await target(tcpTarget());
    try {
      await addJob(region, "otel-stop-1", tcpJob("otel-stop", listener.port, { openTelemetry: { endpoint: collector.origin } }));
      await waitForResult("otel-stop");
      expect(collector.exports).toHaveLength(0);
      expect(await running.stop("SIGTERM")).toBe(0);
      expect(collector.exports).toHaveLength(1);
    } finally {
      await collector.close();
    }
  });
});

describe("several agents", () => {
  it("share a region's work", async () => {
    const region: RegionId = "hostB-par";
    const slow = await target(slowHttpTarget(200));
    const env = { CONCURRENCY: "1", LOG_LEVEL: "debug" };
    const [first, second] = await Promise.all([agent(region, env), agent(region, env)]);

    const monitorIds = Array.from({ length: 20 }, (_, index) => `shared-${index}`);
    await queue(region).addBulk(
      monitorIds.map((monitorId) => ({
        name: "check",
        data: httpJob(monitorId, slow.port),
        opts: { jobId: monitorId, removeOnComplete: true, removeOnFail: true },
      })),
    );

    const found = await waitFor("20 results", async () => {
      const current = await resultsFor(monitorIds);
      return current.length >= 20 && current;
    }, 30_000);
    expect(found).toHaveLength(20);
    expect(new Set(found.map((message) => message.id)).size).toBe(20);
    expect(found.every((message) => message.status === "success" && message.region === region)).toBe(true);
    // A result can reach the stream before its agent's log line reaches this process.
    await waitFor("both agents' log lines", async () => checksDoneBy(first!).length + checksDoneBy(second!).length >= 20, 10_000);
    const byFirst = checksDoneBy(first!);
    const bySecond = checksDoneBy(second!);
    expect(byFirst.length).toBeGreaterThan(0);
    expect(bySecond.length).toBeGreaterThan(0);
    expect(byFirst.length + bySecond.length).toBe(20);
  }, 60_000);
});

describe("shutdown", () => {
  it("finishes the check in progress on SIGTERM, publishes it and exits 0", async () => {
    const region: RegionId = "hostB-sfo";
    const slow = await target(slowHttpTarget(1_500));
    const running = await agent(region);

    await addJob(region, "graceful-1", httpJob("graceful", slow.port));
    await slow.firstRequest;
    const code = await running.stop("SIGTERM");

    expect(code).toBe(0);
    const found = await resultsFor(["graceful"]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ id: "hostB-sfo:graceful-1", status: "success" });
    const messages = running.logs().map((entry) => entry.msg);
    expect(messages).toEqual(expect.arrayContaining(["shutting down: finishing the checks in progress", "agent stopped"]));
    expect(running.logs().find((entry) => entry.msg.startsWith("shutting down"))?.running).toBe(1);
  });

  it("exits at once on a second signal, leaving the job to be run again", async () => {
    const region: RegionId = "hostB-was";
    const slow = await target(slowHttpTarget(10_000));
    const running = await agent(region);

    await addJob(region, "impatient-1", httpJob("impatient", slow.port));
    await slow.firstRequest;
    running.child.kill("SIGTERM");
    await waitFor("the shutdown to begin", async () => running.logs().some((entry) => entry.msg.startsWith("shutting down")));
    expect(await running.stop("SIGINT")).toBe(1);

    expect(await resultsFor(["impatient"])).toHaveLength(0);
    // Still locked by the gone agent, so the stalled-job check will put it back.
    expect(await queue(region).getActiveCount()).toBe(1);
  });

  it("runs a killed agent's job again on another agent once it stalls", async () => {
    const region: RegionId = "hostB-tyo";
    // Short locks and stall checks, so recovery takes seconds rather than a minute.
    const env = { CONCURRENCY: "1", LOCK_DURATION_MS: "1000", STALLED_INTERVAL_MS: "500" };
    const slow = await target(slowHttpTarget(1_500));
    const doomed = await agent(region, env);

    await addJob(region, "stalled-1", httpJob("stalled", slow.port));
    await slow.firstRequest;
    await doomed.stop("SIGKILL");
    expect(await resultsFor(["stalled"])).toHaveLength(0);

    const rescuer = await agent(region, env);
    const message = await waitForResult("stalled", 20_000);
    expect(message).toMatchObject({ id: "hostB-tyo:stalled-1", status: "success", region });
    expect(slow.hits()).toBe(2);
    expect(rescuer.logs().some((entry) => entry.msg === "stalled check job put back in the queue")).toBe(true);
    // Nothing is left stuck: the job is gone from every state.
    await waitFor("the queue to be empty", async () => {
      const counts = await queue(region).getJobCounts("active", "wait", "delayed", "failed", "completed");
      return Object.values(counts).every((count) => count === 0);
    });
    expect(await resultsFor(["stalled"])).toHaveLength(1);
  }, 60_000);
});

describe("Redis trouble", () => {
  const region: RegionId = "hostC-us-west2";
  let server: RedisProcess;
  let client: Redis;
  let checks: Queue<CheckJobData>;

  beforeAll(async () => {
    // Persistent: the check job queued before the restart is still there after it.
    server = await RedisProcess.start({ persistent: true });
    client = new Redis(server.url, { maxRetriesPerRequest: null });
    client.on("error", () => {});
    checks = new Queue<CheckJobData>(checkQueueName(region), { connection: client, prefix });
    // The restart test stops this server on purpose.
    checks.on("error", () => {});
  });
  afterAll(async () => {
    await checks.close();
    client.disconnect();
    await server.dispose();
  });

  const health = async (running: AgentProcess) => (await fetch(`http://127.0.0.1:${running.healthPort}/healthz`)).status;
  const privateResults = async (monitorId: string) =>
    (await client.xrange(resultsStreamKey(prefix), "-", "+"))
      .map(([, fields]) => decodeResult(fields))
      .filter((message) => message?.monitorId === monitorId);

  it("keeps a check's result through a Redis restart", async () => {
    const slow = await target(slowHttpTarget(1_500));
    const running = await agent(region, { REDIS_URL: server.url });
    await checks.add("check", httpJob("restart", slow.port), { jobId: "restart-1", removeOnComplete: true, removeOnFail: true });

    await slow.firstRequest;
    await server.stop();
    await waitFor("health to report the outage", async () => (await health(running)) === 503);
    // The check ends while Redis is down; its result waits for Redis to come back.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(running.logs().some((entry) => entry.msg === "check done")).toBe(false);
    await server.resume();

    const found = await waitFor("the result after the restart", async () => {
      const current = await privateResults("restart");
      return current.length > 0 && current;
    });
    expect(new Set(found.map((message) => message?.id))).toEqual(new Set(["hostC-us-west2:restart-1"]));
    expect(found[0]).toMatchObject({ status: "success", region });
    await waitFor("health to recover", async () => (await health(running)) === 200);
    expect(await running.stop()).toBe(0);
  }, 60_000);

  it("retries a result that Redis refuses until it takes it, and says so once rather than at every try", async () => {
    const held = await target(heldHttpTarget());
    const running = await agent(region, { REDIS_URL: server.url });
    await checks.add("check", httpJob("refused", held.port), { jobId: "refused-1", removeOnComplete: true, removeOnFail: true });
    const publisherSaid = () => running.logs().filter((entry) => entry.component === "result publisher" || /publishing a result/.test(entry.msg));

    await held.firstRequest;
    // Out of memory: Redis answers writes such as XADD with an OOM error. The check ends only then.
    await client.config("SET", "maxmemory", "1");
    held.release();
    try {
      await waitFor("a failed publication", async () => publisherSaid().length > 0);
      // Long enough for several tries (after 0.1, 0.2, 0.4, 0.8 s).
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await privateResults("refused")).toHaveLength(0);
    } finally {
      await client.config("SET", "maxmemory", "0");
    }
    const message = await waitFor("the result", async () => (await privateResults("refused"))[0]);
    expect(message).toMatchObject({ id: "hostC-us-west2:refused-1", status: "success" });
    await waitFor("the publisher's recovery", async () => publisherSaid().length === 2);
    expect(publisherSaid()).toEqual([
      expect.objectContaining({ level: 40, msg: "redis is unavailable", dependency: "redis", err: expect.objectContaining({ message: expect.stringContaining("OOM") }) }),
      expect.objectContaining({ level: 30, msg: "redis is available again", dependency: "redis", unavailableMs: expect.any(Number) }),
    ]);
    expect(await running.stop()).toBe(0);
  }, 60_000);

  it("reports 503 while Redis is unreachable and still stops on SIGTERM", async () => {
    const port = await closedPort();
    const running = await startAgent(agentEnv(region, { REDIS_URL: `redis://127.0.0.1:${port}` }), {
      until: "health endpoint listening",
    });
    agents.push(running);
    expect(await health(running)).toBe(503);
    const code = await running.stop("SIGTERM");
    // Its stderr says why, should it exit otherwise.
    expect({ code, stderr: running.stderr() }).toEqual({ code: 0, stderr: "" });
  });
});
