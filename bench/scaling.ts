// Scaling-out benchmark (issue 13): one control-plane process, then two, on one PostgreSQL database
// and one Redis prefix, as a deployment behind a load balancer runs them. Each process is the built
// control plane (bench/api-server.ts: startPipeline and startApiServer, as main.js wires them), so
// the processes share the result stream as one consumer group and serve the same API.
//  - Ingest: results appended at once to the stream with pipelined XADD (as agents publish them),
//    timed until the consumers have stored and deleted them all; results/s.
//  - API: GetMonitor throughput, the load generator's connections spread evenly over the processes.
// Both configurations in the same run, one after the other, each on a fresh Redis prefix.
// Usage: pnpm bench:scaling, with optional BENCH_INGEST_RESULTS (50000), BENCH_SECONDS (15),
// BENCH_WARMUP_SECONDS (3), BENCH_PROCESSES (1,2), VIGIL_TEST_POSTGRES_URL (else scripts/ensure-postgres.sh),
// VIGIL_TEST_REDIS_URL (else a Redis on port 6391 via scripts/ensure-redis.sh).
// Progress goes to stderr; the table to stdout and, for the issue's run (1 and 2 processes), into docs/benchmarks.md.
import { performance } from "node:perf_hooks";
import { applyMigrations, DEFAULT_POOL_SIZE, openDatabase, type DatabaseTarget, type PrismaClient } from "@vigil/db";
import { PERIODICITY_MS, type RegionId } from "@vigil/domain";
import { connectRedis, resultsStreamKey, scheduleOffset, type RedisConnection, type ResultMessage } from "@vigil/queue";

import { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";
import { benchPrefix, log, runBenchmark, sleep } from "./support/run";
import { fmt } from "./support/stats";
import { ResultFactory } from "./pipeline/results";
import { seedWorkspace } from "./seed";
import { assertAnswers, getMonitorCall, loadRequest } from "./support/api-calls";
import { assertBuilt } from "./support/built";
import { benchDatabase } from "./support/database";
import { writeDocsBlock } from "./support/doc";
import { load } from "./support/load";
import { ATTEMPTS, type Cpu, cpuMeter, leastDisturbed, pidTicks, postgresTicks, redisTicks, runOn } from "./support/machine";
import { startServer, stopServer, type ServerProcess } from "./support/server-process";
import { commandLine, listSetting, numberSetting } from "./support/settings";
import { appendResults } from "./support/stream";

const INGEST_RESULTS = numberSetting("INGEST_RESULTS", 50_000);
const SECONDS = numberSetting("SECONDS", 15);
const WARMUP_SECONDS = numberSetting("WARMUP_SECONDS", 3);
const PROCESSES = listSetting("PROCESSES", [1,2]);
/** bench:api's workspace: monitors of every kind, periodicity and 1 to 4 regions, 80 % active. */
const MONITORS = 10_000;
const CONNECTIONS = 32;
const DEFAULT_REGION: RegionId = "hostA-ams";

interface Measured {
  /** Results/s or requests/s. */
  rate: number;
  seconds: number;
  count: number;
  cpu: Cpu;
  attempt: number;
  latency?: { p50: number; p99: number; max: number };
}

interface Configuration {
  processes: number;
  ingest: Measured;
  api: Measured;
}

/** The active monitors' (id, regions), in the order their checks come due over a period (their schedule offsets). */
async function activeMonitors(prisma: PrismaClient): Promise<{ id: string; regions: RegionId[]; offset: number }[]> {
  const rows = await prisma.$queryRaw<{ id: string; regions: RegionId[]; periodicity: keyof typeof PERIODICITY_MS }[]>`
    SELECT id, regions, periodicity FROM monitors WHERE active`;
  return rows
    .map((row) => ({
      id: row.id,
      regions: row.regions.length > 0 ? row.regions : [DEFAULT_REGION],
      offset: scheduleOffset(row.id, PERIODICITY_MS[row.periodicity]),
    }))
    .sort((a, b) => a.offset - b.offset);
}

/**
 * Results as agents publish them: every active monitor in each of its regions, round after round of
 * 30 s, a monitor's regions together (they run at the same offset) and the monitors in the order of
 * their offsets. Each call takes new ones, so every measurement stores what it measures.
 */
function resultSource(monitors: Awaited<ReturnType<typeof activeMonitors>>, firstSlot: number): (count: number) => ResultMessage[] {
  const factory = new ResultFactory(3);
  function* all(): Generator<ResultMessage> {
    for (let round = firstSlot; ; round += 30_000) {
      for (const monitor of monitors) for (const region of monitor.regions) yield factory.result(monitor.id, region, round + monitor.offset);
    }
  }
  const source = all();
  return (count) => Array.from({ length: count }, () => source.next().value as ResultMessage);
}

/** The least disturbed of up to ATTEMPTS runs of a measurement (leastDisturbed), with which run it was. */
async function undisturbed(what: string, measure: () => Promise<Omit<Measured, "attempt">>): Promise<Measured> {
  const { figures, attempt } = await leastDisturbed(what, measure, (measured) => measured.cpu.rest);
  return { ...figures, attempt };
}

/** CPU shares of each control-plane process, PostgreSQL, Redis, this process and the rest. */
function meter(servers: ServerProcess[], redisPort: string): () => Cpu {
  return cpuMeter({
    ...Object.fromEntries(servers.map((server, i) => [`server${i + 1}`, pidTicks(server.child.pid!)])),
    postgres: postgresTicks,
    redis: redisTicks(redisPort),
  });
}

async function measureIngest(servers: ServerProcess[], redis: RedisConnection, prefix: string, take: (count: number) => ResultMessage[]) {
  const key = resultsStreamKey(prefix);
  return undisturbed(`ingest with ${servers.length} process(es)`, async () => {
    const results = take(INGEST_RESULTS);
    log(`${servers.length} process(es): appending ${fmt(results.length)} results to ${key}`);
    const cpu = meter(servers, new URL(redisServerUrl()).port);
    const started = performance.now();
    await appendResults(redis, key, results);
    // The consumers delete entries once their batch is stored and acknowledged: an empty stream means all are stored.
    const deadline = Date.now() + 30 * 60_000;
    while ((await redis.xlen(key)) > 0) {
      if (Date.now() > deadline) throw new Error("timed out waiting for the consumers to drain the stream");
      await sleep(20);
    }
    const seconds = (performance.now() - started) / 1000;
    log(`${servers.length} process(es): stored ${fmt(results.length)} results in ${seconds.toFixed(1)} s`);
    return { rate: results.length / seconds, seconds, count: results.length, cpu: cpu() };
  });
}

async function measureApi(servers: ServerProcess[], key: string, monitorIds: string[]) {
  const call = getMonitorCall(monitorIds);
  const ports = servers.map((server) => server.port);
  for (const port of ports) await assertAnswers(port, call, key);
  const run = (seconds: number) => load(ports, loadRequest(call, key), { connections: CONNECTIONS, seconds });
  log(`${servers.length} process(es): GetMonitor warm-up ${WARMUP_SECONDS} s`);
  await run(WARMUP_SECONDS);
  return undisturbed(`GetMonitor with ${servers.length} process(es)`, async () => {
    log(`${servers.length} process(es): GetMonitor for ${SECONDS} s, ${CONNECTIONS} connections over ${ports.length} port(s)`);
    const cpu = meter(servers, new URL(redisServerUrl()).port);
    const { requests, seconds, p50, p99, max } = await run(SECONDS);
    log(`${servers.length} process(es): ${fmt(requests / seconds)} GetMonitor/s, p99 ${p99.toFixed(1)} ms`);
    return { rate: requests / seconds, seconds, count: requests, cpu: cpu(), latency: { p50, p99, max } };
  });
}

/** Starts `processes` control planes on one database and a fresh Redis prefix, measures, stops them. */
async function configuration(processes: number, target: DatabaseTarget, seeded: { key: string; monitorIds: string[] }, take: (count: number) => ResultMessage[]): Promise<Configuration> {
  const prefix = benchPrefix();
  const redis = connectRedis(redisServerUrl(), "vigil-bench-agent");
  const servers: ServerProcess[] = [];
  try {
    log(`starting ${processes} control-plane process(es) on prefix ${prefix}`);
    // One after the other, as a rollout brings them up: the first one's start-up reconciliation writes the schedules.
    for (let i = 0; i < processes; i++) servers.push(await startServer(target, { BENCH_REDIS_PREFIX: prefix }));
    const ingest = await measureIngest(servers, redis, prefix, take);
    const api = await measureApi(servers, seeded.key, seeded.monitorIds);
    return { processes, ingest, api };
  } finally {
    await Promise.all(servers.map((server) => stopServer(server.child)));
    redis.disconnect();
    await deletePrefix(prefix);
  }
}

const cpuColumns = (cpu: Cpu, processes: number) =>
  [
    Array.from({ length: processes }, (_, i) => cpu[`server${i + 1}`]!.toFixed(0)).join(" + "),
    cpu.postgres!.toFixed(0),
    cpu.redis!.toFixed(0),
    cpu.self.toFixed(0),
    cpu.rest.toFixed(0),
  ].join(" / ");

const rerun = (m: Measured) => (m.attempt > 1 ? ` (run ${m.attempt}: earlier runs disturbed by other work)` : "");

function table(all: Configuration[]): string {
  const base = all[0]!;
  const rows = all.flatMap((c) => [
    `| ${c.processes} | Ingest: stream → consumer group → storeResults | **${fmt(c.ingest.rate)} results/s** | ${(c.ingest.rate / base.ingest.rate).toFixed(2)}x | ${fmt(c.ingest.count)} results in ${c.ingest.seconds.toFixed(1)} s${rerun(c.ingest)} | ${cpuColumns(c.ingest.cpu, c.processes)} |`,
    `| ${c.processes} | API: GetMonitor, ${CONNECTIONS} connections spread over the processes | **${fmt(c.api.rate)} req/s** | ${(c.api.rate / base.api.rate).toFixed(2)}x | p50 ${c.api.latency!.p50.toFixed(1)} ms, p99 ${c.api.latency!.p99.toFixed(1)} ms, max ${c.api.latency!.max.toFixed(0)} ms; ${fmt(c.api.count)} requests, 0 errors${rerun(c.api)} | ${cpuColumns(c.api.cpu, c.processes)} |`,
  ]);
  return [
    `| Control-plane processes | Measure | Rate | vs ${base.processes} process | Details | CPU %: control plane(s) / PostgreSQL / Redis / bench process (XADD, load generator) / rest |`,
    "|---:|---|---:|---:|---|---:|",
    ...rows,
  ].join("\n");
}

/** Every result appended was stored exactly once, whichever process's consumer took it. */
async function assertStoredOnce(prisma: PrismaClient, expected: number): Promise<void> {
  const [row] = await prisma.$queryRaw<{ raw: bigint; counted: bigint }[]>`
    SELECT (SELECT count(*) FROM check_results) AS raw,
           (SELECT coalesce(sum(successful + degraded + failed), 0) FROM result_counts) AS counted`;
  if (Number(row!.raw) !== expected || Number(row!.counted) !== expected) {
    throw new Error(`expected ${expected} stored results, found ${row!.raw} rows and ${row!.counted} counted`);
  }
  log(`all ${fmt(expected)} results stored exactly once`);
}

async function main(): Promise<void> {
  assertBuilt("apps/control-plane", "packages/db", "packages/domain", "packages/proto", "packages/queue", "packages/logging");
  const { target, remove } = await benchDatabase("postgres", "vigil_bench_scaling");
  const db = await openDatabase(target);
  try {
    await applyMigrations(db);
    log(`seeding ${fmt(MONITORS)} monitors`);
    const seeded = await seedWorkspace(db.prisma, MONITORS);
    await db.prisma.$executeRawUnsafe("ANALYZE");
    const version = (await db.prisma.$queryRawUnsafe<{ server_version: string }[]>("SHOW server_version"))[0]!.server_version;
    const monitors = await activeMonitors(db.prisma);
    const perRound = monitors.reduce((sum, monitor) => sum + monitor.regions.length, 0);
    // Rounds ending about now, enough for every measurement and its possible repeats.
    const rounds = Math.ceil((PROCESSES.length * ATTEMPTS * INGEST_RESULTS) / perRound) + 1;
    const take = resultSource(monitors, (Math.floor(Date.now() / 30_000) - rounds) * 30_000);
    let appended = 0;
    const counting = (count: number) => {
      appended += count;
      return take(count);
    };

    const all: Configuration[] = [];
    for (const processes of PROCESSES) all.push(await configuration(processes, target, seeded, counting));
    await assertStoredOnce(db.prisma, appended);

    process.stdout.write(`${table(all)}\n`);
    const redis = connectRedis(redisServerUrl(), "vigil-bench-info");
    const redisVersion = /redis_version:(\S+)/.exec(await redis.info("server"))?.[1] ?? "unknown";
    redis.disconnect();
    if (PROCESSES.join() === "1,2") {
      writeDocsBlock(
        "scaling",
        "Scaling out (issue 13)",
        "bench/scaling.ts",
        [
          `${runOn(`PostgreSQL ${version}, Redis ${redisVersion}`)} Command: \`${commandLine("bench:scaling")}\` ` +
            `(the built control plane, startPipeline + startApiServer, in 1 and then 2 processes on one PostgreSQL database (pool ${DEFAULT_POOL_SIZE} connections each) and one Redis prefix; ` +
            `${fmt(MONITORS)} monitors of bench:api's workspace, ${fmt(monitors.length)} active, results in 30-s rounds of ${fmt(perRound)} (every active monitor in each of its regions, in the order of their offsets); ` +
            `all ${fmt(appended)} results appended checked stored exactly once).`,
          "",
          table(all),
        ].join("\n"),
      );
      log("wrote the scaling block of docs/benchmarks.md");
    } else {
      log("not the issue's run (1 and 2 processes): docs/benchmarks.md left as it was");
    }
  } finally {
    await db.close();
    await remove();
  }
}

runBenchmark(main);
