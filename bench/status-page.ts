// Public status page benchmark (issue 9), on PostgreSQL and real Redis, the built control plane in a
// process of its own (bench/api-server.ts). A public page with 20 monitor components in 3 groups,
// 90 days of daily aggregates and a few incidents:
//  1. requests per second and p50/p99 at 32 and 256 concurrent visitors, with and without
//     If-None-Match, beside the trivial Health/Check handler of the same server at the same load;
//  2. what a burst of visitors costs the rest of the service: GetMonitor latency (one call at a time)
//     and the result ingest rate (a backlog appended to the stream at once) while 256 visitors load the
//     page, beside the same figures without them.
// Usage: pnpm bench:status-page, with optional BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3),
// BENCH_INGEST_RESULTS (20000), VIGIL_TEST_POSTGRES_URL (else scripts/ensure-postgres.sh),
// VIGIL_TEST_REDIS_URL (else a Redis on port 6391 via scripts/ensure-redis.sh), BENCH_CPU_PROF.
// Progress goes to stderr; the tables to stdout and into docs/benchmarks.md.
import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { applyMigrations, DEFAULT_POOL_SIZE, openDatabase, type PrismaClient } from "@vigil/db";
import type { RegionId } from "@vigil/domain";
import { connectRedis, resultsStreamKey, type ResultMessage } from "@vigil/queue";
import type { RedisConnection } from "@vigil/queue";
import { dropDatabase, recreateDatabase } from "@vigil/local-servers/postgres";
import { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";
import { benchPrefix, log, runBenchmark, sleep } from "./support/run";
import { fmt, percentile, sortedCopy } from "./support/stats";
import { seedWorkspace } from "./seed";
import { assertBuilt } from "./support/built";
import { writeDocsBlock } from "./support/doc";
import { load, type LoadFigures, type LoadRequest } from "./support/load";
import { type Cpu, cpuMeter, postgresTicks, processTicks, runOn, waitForQuietMachine } from "./support/machine";
import { startServer, stopServer, type ServerProcess } from "./support/server-process";
import { commandLine, numberSetting } from "./support/settings";
import { checkResult } from "./support/results";
import { appendResults } from "./support/stream";

const SECONDS = numberSetting("SECONDS", 10);
const WARMUP_SECONDS = numberSetting("WARMUP_SECONDS", 3);
const INGEST_RESULTS = numberSetting("INGEST_RESULTS", 20_000);
const CONNECTIONS = [32, 256] as const;
const BURST_CONNECTIONS = 256;
/** The bursts measured: as fast as the load generator goes (it then takes a core of its own), and capped at a rate. */
const BURST_RATES = [null, 1_000] as const;
const COMPONENTS = 20;
const GROUPS = 3;
const DAYS = 90;
const SLUG = "bench-status";
const DATABASE = "vigil_bench_status_page";
const DAY_MS = 86_400_000;
/** What a browser says it takes; the page answers gzip, compressed once per render. */
const BROWSER_ENCODINGS = "gzip, deflate, br";

// ---- the page --------------------------------------------------------------------------------

/** A day's checks over all of a monitor's regions (the roll-up pages read): a minute's period, a bad day now and then. */
function dayCounts(monitor: number, day: number, regions: number) {
  const total = 1_440;
  const failed = (monitor + day) % 29 === 0 ? 60 : (monitor + day) % 11 === 0 ? 3 : 0;
  const degraded = (monitor * 7 + day) % 13 === 0 ? 90 : 4;
  return { successful: (total - failed - degraded) * regions, degraded: degraded * regions, failed: failed * regions };
}

/** The page of the issue: 20 monitor components in 3 groups (two left ungrouped), 90 days of data, incidents. */
async function seedPage(prisma: PrismaClient, workspaceId: string, monitorIds: string[]): Promise<void> {
  const page = await prisma.statusPage.create({
    data: {
      workspaceId,
      title: "Bench Status",
      slug: SLUG,
      description: "Every service of the benchmark workspace.",
      homepageUrl: "https://bench.example.com/",
      contactUrl: "https://bench.example.com/contact",
      authEmailDomains: [],
    },
  });
  const groups = await Promise.all(
    ["Website", "API", "Infrastructure"].slice(0, GROUPS).map((name) => prisma.statusPageComponentGroup.create({ data: { pageId: page.id, name } })),
  );
  const monitors = await prisma.monitor.findMany({ where: { id: { in: monitorIds.slice(0, COMPONENTS) } }, select: { id: true, regions: true } });
  await prisma.statusPageComponent.createMany({
    data: monitors.map((monitor, i) => ({
      pageId: page.id,
      type: "monitor",
      monitorId: monitor.id,
      description: i % 2 === 0 ? `Component ${i}` : "",
      position: i,
      groupId: i < COMPONENTS - 2 ? groups[i % GROUPS]!.id : null,
      groupOrder: i,
    })),
  });
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  await prisma.allRegionDailyResultCount.createMany({
    data: monitors.flatMap((monitor, m) =>
      Array.from({ length: DAYS }, (_, d) => ({ monitorId: monitor.id, day: new Date(today - d * DAY_MS), ...dayCounts(m, d, monitor.regions.length) })),
    ),
  });
  // One monitor failing now with an open incident, and resolved incidents over the last two weeks.
  await prisma.monitor.update({ where: { id: monitors[0]!.id }, data: { status: "error" } });
  await prisma.monitor.updateMany({ where: { id: { in: monitors.slice(1).map((m) => m.id) } }, data: { status: "active" } });
  await prisma.incident.createMany({
    data: [
      { workspaceId, monitorId: monitors[0]!.id, severity: "error", startedAt: new Date(Date.now() - 600_000), regions: monitors[0]!.regions, error: "HTTP 503" },
      ...monitors.slice(1, 6).map((monitor, i) => ({
        workspaceId,
        monitorId: monitor.id,
        severity: i % 2 === 0 ? "error" : "degraded",
        startedAt: new Date(Date.now() - (i + 1) * 2 * DAY_MS),
        resolvedAt: new Date(Date.now() - (i + 1) * 2 * DAY_MS + 1_800_000),
        regions: monitor.regions,
        error: i % 2 === 0 ? "connection refused" : null,
      })),
    ],
  });
}

// ---- throughput ------------------------------------------------------------------------------

interface Target {
  name: string;
  request: LoadRequest;
  expect: number;
}

interface Throughput {
  target: string;
  connections: number;
  rps: number;
  run: LoadFigures;
  cpu: Cpu;
}

async function targets(port: number): Promise<Target[]> {
  // fetch asks for gzip and decompresses on its own.
  const page = await fetch(`http://127.0.0.1:${port}/status/${SLUG}`, { headers: { "accept-encoding": BROWSER_ENCODINGS } });
  const html = await page.text();
  if (page.status !== 200 || !html.includes("Bench Status")) throw new Error(`the page answered ${page.status}: ${html.slice(0, 200)}`);
  const etag = page.headers.get("etag");
  if (!etag || page.headers.get("content-encoding") !== "gzip") throw new Error("the page has no ETag, or is not compressed");
  const gzipped = gzipSync(html).length;
  log(`the page: ${fmt(Buffer.byteLength(html) / 1024)} KiB of HTML, about ${fmt(gzipped / 1024)} KiB compressed`);
  const health = await fetch(`http://127.0.0.1:${port}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  if (!(await health.text()).includes("SERVING")) throw new Error("Health/Check does not answer SERVING");
  return [
    {
      name: "Health/Check (baseline)",
      request: { method: "POST", path: "/grpc.health.v1.Health/Check", headers: { "content-type": "application/json" }, body: () => "{}" },
      expect: 200,
    },
    { name: "page", request: { method: "GET", path: `/status/${SLUG}`, headers: { "accept-encoding": BROWSER_ENCODINGS } }, expect: 200 },
    {
      name: "page, If-None-Match",
      request: { method: "GET", path: `/status/${SLUG}`, headers: { "accept-encoding": BROWSER_ENCODINGS, "if-none-match": etag } },
      expect: 304,
    },
  ];
}

async function throughput(server: ServerProcess, target: Target, connections: number): Promise<Throughput> {
  await load(server.port, target.request, { connections, seconds: WARMUP_SECONDS, expect: [target.expect] });
  await waitForQuietMachine();
  const meter = cpuMeter({ server: () => processTicks(server.child.pid!).ticks, postgres: postgresTicks });
  const run = await load(server.port, target.request, { connections, seconds: SECONDS, expect: [target.expect] });
  const rps = run.requests / run.seconds;
  log(`${target.name} at ${connections}: ${fmt(rps)} req/s, p50 ${run.p50.toFixed(2)} ms, p99 ${run.p99.toFixed(2)} ms`);
  return { target: target.name, connections, rps, run, cpu: meter() };
}

// ---- what a burst costs the rest -------------------------------------------------------------

/** 256 visitors loading the page from another process (autocannon's CLI), at most `rate` pages a second, until stopped. */
function startBurst(port: number, rate: number | null): { running(): boolean; stop(): Promise<void> } {
  const args = ["-c", String(BURST_CONNECTIONS), "-d", "3600", "-n", "-H", `accept-encoding=${BROWSER_ENCODINGS}`];
  if (rate !== null) args.push("-R", String(rate));
  args.push(`http://127.0.0.1:${port}/status/${SLUG}`);
  const child = fork(require.resolve("autocannon"), args, { stdio: "ignore" });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    running,
    stop: () =>
      new Promise<void>((resolve) => {
        if (!running()) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGINT");
      }),
  };
}

/** GetMonitor one call at a time for `seconds`: its latencies. */
async function getMonitorLatencies(port: number, key: string, monitorIds: string[], seconds: number): Promise<Float64Array> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < until; i++) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/monitor.v1.MonitorService/GetMonitor`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-key": key },
      body: JSON.stringify({ id: monitorIds[i % monitorIds.length] }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GetMonitor answered ${response.status}`);
    latencies.push(performance.now() - started);
  }
  return sortedCopy(latencies);
}

/** Appends a backlog of healthy results at once and times how long the control plane takes to store it. */
async function ingestRate(redis: RedisConnection, key: string, monitorIds: string[], round: number): Promise<number> {
  const regions: RegionId[] = ["hostA-ams"];
  const base = (Math.floor(Date.now() / 60_000) - 1) * 60_000 - round * INGEST_RESULTS * 1_000;
  const results: ResultMessage[] = Array.from({ length: INGEST_RESULTS }, (_, i) => {
    const monitorId = monitorIds[i % monitorIds.length]!;
    const slot = base - Math.floor(i / monitorIds.length) * 60_000;
    return checkResult({ id: `${regions[0]}:bench:${monitorId}:${slot}`, monitorId, region: regions[0]!, startedAt: new Date(slot + 50) });
  });
  const started = performance.now();
  await appendResults(redis, key, results);
  while ((await redis.xlen(key)) > 0) await sleep(10);
  return results.length / ((performance.now() - started) / 1000);
}

interface Interference {
  getMonitor: Float64Array;
  ingest: number;
}

async function interference(server: ServerProcess, redis: RedisConnection, streamKey: string, readKey: string, monitorIds: string[], round: number): Promise<Interference> {
  const getMonitor = await getMonitorLatencies(server.port, readKey, monitorIds, SECONDS);
  const ingest = await ingestRate(redis, streamKey, monitorIds, round);
  return { getMonitor, ingest };
}

// ---- the run ---------------------------------------------------------------------------------

async function run() {
  const prefix = benchPrefix();
  const url = await recreateDatabase(DATABASE);
  const redis = connectRedis(redisServerUrl(), "vigil-bench-status-page");
  let server: ServerProcess | undefined;
  try {
    const db = await openDatabase({ kind: "postgres", url });
    let seeded: Awaited<ReturnType<typeof seedWorkspace>>;
    let version: string;
    try {
      await applyMigrations(db);
      seeded = await seedWorkspace(db.prisma, COMPONENTS);
      const { workspaceId } = await db.prisma.monitor.findUniqueOrThrow({ where: { id: seeded.monitorIds[0]! } });
      await seedPage(db.prisma, workspaceId, seeded.monitorIds);
      await db.prisma.$executeRawUnsafe("ANALYZE");
      version = (await db.prisma.$queryRawUnsafe<{ server_version: string }[]>("SHOW server_version"))[0]!.server_version;
    } finally {
      await db.close();
    }
    log(`seeded a page of ${COMPONENTS} components in ${GROUPS} groups with ${DAYS} days of data`);
    server = await startServer({ kind: "postgres", url }, { BENCH_REDIS_PREFIX: prefix });

    const measured: Throughput[] = [];
    for (const connections of CONNECTIONS) {
      for (const target of await targets(server.port)) measured.push(await throughput(server, target, connections));
    }

    const streamKey = resultsStreamKey(prefix);
    await waitForQuietMachine();
    log("without visitors: GetMonitor one at a time, then an ingest backlog");
    const quiet = await interference(server, redis, streamKey, seeded.key, seeded.monitorIds, 0);
    const busy: { rate: number | null; figures: Interference }[] = [];
    for (const [i, rate] of BURST_RATES.entries()) {
      log(`with ${BURST_CONNECTIONS} visitors loading the page${rate === null ? "" : ` ${fmt(rate)} times a second`}: the same`);
      const burst = startBurst(server.port, rate);
      try {
        await sleep(WARMUP_SECONDS * 1000);
        busy.push({ rate, figures: await interference(server, redis, streamKey, seeded.key, seeded.monitorIds, i + 1) });
        if (!burst.running()) throw new Error("the visitors' load generator stopped before the measurement ended");
      } finally {
        await burst.stop();
      }
    }
    return { measured, quiet, busy, version, redis: /redis_version:(\S+)/.exec(await redis.info("server"))?.[1] ?? "unknown" };
  } finally {
    if (server) await stopServer(server.child);
    redis.disconnect();
    await deletePrefix(prefix);
    await dropDatabase(DATABASE);
  }
}

// ---- the report ------------------------------------------------------------------------------

function tables(f: Awaited<ReturnType<typeof run>>): string {
  const rows = f.measured.map((m) => {
    const baseline = f.measured.find((b) => b.connections === m.connections && b.target.startsWith("Health"))!;
    const share = m === baseline ? "100 % (baseline)" : `**${((100 * m.rps) / baseline.rps).toFixed(1)} %**`;
    const cpu = [m.cpu.server!, m.cpu.postgres!, m.cpu.self, m.cpu.rest].map((v) => v.toFixed(0)).join(" / ");
    return `| ${m.target} | ${m.connections} | ${fmt(m.rps)} | ${m.run.p50.toFixed(2)} | ${m.run.p99.toFixed(2)} | ${share} | ${fmt(m.run.requests)} | ${cpu} |`;
  });
  const cached = f.measured.filter((m) => m.target.startsWith("page"));
  const worst = Math.min(
    ...cached.map((m) => m.rps / f.measured.find((b) => b.connections === m.connections && b.target.startsWith("Health"))!.rps),
  );
  const ms = (sorted: Float64Array, p: number) => percentile(sorted, p).toFixed(2);
  return [
    "| Endpoint | Visitors (connections) | req/s | p50 (ms) | p99 (ms) | Share of baseline req/s | Requests | CPU %: server / PostgreSQL / load generator / rest |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    `The cached page's lowest share of the trivial handler's rate: ${(100 * worst).toFixed(1)} % (goal: 80 % or more; ${worst >= 0.8 ? "met" : "missed"}).`,
    "",
    "| | GetMonitor p50 (ms) | GetMonitor p99 (ms) | Ingest (results/s) |",
    "|---|---:|---:|---:|",
    `| without visitors | ${ms(f.quiet.getMonitor, 50)} | ${ms(f.quiet.getMonitor, 99)} | ${fmt(f.quiet.ingest)} |`,
    ...f.busy.map(
      ({ rate, figures }) =>
        `| ${BURST_CONNECTIONS} visitors loading the page ${rate === null ? "as fast as they can" : `${fmt(rate)} times a second`} | ` +
        `${ms(figures.getMonitor, 50)} | ${ms(figures.getMonitor, 99)} | ${fmt(figures.ingest)} |`,
    ),
  ].join("\n");
}

async function main(): Promise<void> {
  assertBuilt("apps/control-plane", "packages/db", "packages/domain", "packages/proto", "packages/queue", "packages/logging");
  const figures = await run();
  const markdown = tables(figures);
  process.stdout.write(`${markdown}\n`);
  writeDocsBlock(
    "status-page",
    "Public status pages (issue 9)",
    "bench/status-page.ts",
    [
      `${runOn(`PostgreSQL ${figures.version}, Redis ${figures.redis}`)} Command: \`${commandLine("bench:status-page")}\`. ` +
        `The built control plane in a process of its own (PostgreSQL pool ${DEFAULT_POOL_SIZE}); a public page of ${COMPONENTS} ` +
        `monitor components in ${GROUPS} groups with ${DAYS} days of daily aggregates, an open and 5 resolved incidents; HTTP/1.1 GET ` +
        `/status/${SLUG} as browsers ask for it (Accept-Encoding: ${BROWSER_ENCODINGS}; the cached page, 200, gzip) and with the ETag in ` +
        `If-None-Match (304), beside the trivial Health/Check handler ` +
        `(Connect JSON) at the same number of connections. Then, without visitors and with ${BURST_CONNECTIONS} visitors loading the page ` +
        `(as fast as the load generator goes, which takes a core of this machine to itself, and at ${fmt(BURST_RATES[1])} pages a second) from ` +
        `another process: GetMonitor one call at a time for ${SECONDS} s, and ${fmt(INGEST_RESULTS)} healthy results appended to the ` +
        `stream at once, timed until all are stored.`,
      "",
      markdown,
    ].join("\n"),
  );
  log("wrote the status-page block of docs/benchmarks.md");
}

runBenchmark(main);
