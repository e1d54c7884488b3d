// API throughput benchmark (issue 2): GetMonitor and ListMonitors(limit=100) against the
// trivial Health/Check handler on the same server, on PostgreSQL and on PGlite.
// Usage: pnpm bench:api, with optional BENCH_SECONDS (15), BENCH_WARMUP_SECONDS (3),
// BENCH_BACKENDS (postgres,pglite), BENCH_MONITORS (10000; other sizes write the growth blocks), BENCH_RATES (200,500:
// the fixed total request rates of the latency runs; empty for none), BENCH_RATE_SECONDS (10), BENCH_RATE_WARMUP_SECONDS (5),
// VIGIL_TEST_POSTGRES_URL
// (else scripts/ensure-postgres.sh), BENCH_CPU_PROF, BENCH_SERVER_NODE_ARGS (node flags for the server process, e.g. --trace-gc),
// BENCH_NO_DOC=1 (print only, leave docs/benchmarks.md alone).
// Progress goes to stderr; the results table to stdout and, when both backends ran, into docs/benchmarks.md.
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { applyMigrations, DEFAULT_POOL_SIZE, openDatabase, type DatabaseTarget } from "@vigil/db";
import { seedWorkspace } from "./seed";
import { assertAnswers, getMonitorCall, loadRequest, type ApiCall } from "./support/api-calls";
import { assertBuilt } from "./support/built";
import { benchDatabase } from "./support/database";
import { DOCS, ROOT, writeDocsBlock } from "./support/doc";
import { load } from "./support/load";
import { pacedLoad } from "./support/paced-load";
import { startServer, stopServer } from "./support/server-process";
import { serverTiming, type ServerTiming, type Tail } from "./support/server-timing";
import { cpuMeter as machineCpuMeter, describeMachine, leastDisturbed, postgresTicks, processTicks, redisTicks, waitForQuietMachine } from "./support/machine";
import { redisServerUrl } from "@vigil/local-servers/redis";
import { log, runBenchmark } from "./support/run";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "postgres,pglite").split(",") as Backend[];
const CONNECTIONS = 32;
/** The workspace's size: the issue's scenario is 10,000; other sizes fill the growth blocks (docs/benchmarks.md). */
const MONITORS = Number(process.env.BENCH_MONITORS ?? 10_000);
const SCENARIO_MONITORS = 10_000;
const PG_DATABASE = "vigil_bench";
/**
 * Total request rates (req/s, all 32 connections together) at which latency is measured in an open
 * loop, the same rates for the baseline and each endpoint: a closed loop saturates the server, so its
 * latencies are queueing (Little's law) rather than the cost of a call.
 */
const RATES = (process.env.BENCH_RATES ?? "200,500").split(",").filter(Boolean).map(Number);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 10);
/**
 * Each endpoint runs at the rate this long before it is measured, so that the figures are of a steady load: after the
 * lighter load before it, V8 gives memory back (its memory reducer shrinks the young generation and the heap's
 * limit) and then collects in full two or three times, 20-40 ms each, while the heap grows back.
 */
const RATE_WARMUP_SECONDS = Number(process.env.BENCH_RATE_WARMUP_SECONDS ?? 5);
/** The issue's p99 goals (ms). */
const P99_GOALS: Record<string, number> = { GetMonitor: 10, "ListMonitors(limit=100)": 50 };

type Backend = "postgres" | "pglite";

interface Figures {
  backend: Backend;
  endpoint: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  cpu: Cpu;
}

/** Latency of one endpoint at a fixed total request rate. */
interface AtRate {
  backend: Backend;
  endpoint: string;
  rate: number;
  /** Requests answered per second: below `rate` when the server could not keep up. */
  achieved: number;
  p50: number;
  p99: number;
  max: number;
  /** Where the tail was made: the server's handling and event loop, the load generator's event loop. */
  server: ServerTiming;
  loadGeneratorLoopDelay: Tail;
}

const tail = (t: Tail) => `${t.p99.toFixed(1)} / ${t.max.toFixed(0)}`;
/** The server's collections in a run: the longest young one (ms) · how many full ones (the longest, ms). */
const collections = ({ youngMax, full, fullMax }: ServerTiming["gc"]) => `${youngMax.toFixed(1)} · ${full}${full > 0 ? ` (${fullMax.toFixed(0)})` : ""}`;

/** CPU time over wall time in the measured window, in % of one core (so up to 100 x cores in all). */
interface Cpu {
  server: number;
  postgres: number;
  /** The server counts every call in Redis (the rate limits, in the background): part of what is measured, not a disturbance. */
  redis: number;
  loadGenerator: number;
  /** Whatever else ran: the kernel's share of loopback traffic, and other work on the machine. */
  rest: number;
}

function endpoints(monitorIds: string[]): ApiCall[] {
  return [
    {
      name: "Health/Check (baseline)",
      path: "/grpc.health.v1.Health/Check",
      body: () => "{}",
      check: (r) => (r.status === "SERVING" ? null : "not SERVING"),
    },
    getMonitorCall(monitorIds),
    {
      name: "ListMonitors(limit=100)",
      path: "/monitor.v1.MonitorService/ListMonitors",
      body: () => JSON.stringify({ limit: 100 }),
      check: (r) => {
        const page = (r.httpMonitors?.length ?? 0) + (r.tcpMonitors?.length ?? 0) + (r.dnsMonitors?.length ?? 0);
        return page === 100 && Number(r.totalSize) === MONITORS ? null : `page of ${page}, totalSize ${r.totalSize}`;
      },
    },
  ];
}

/** Migrates and seeds, then closes: the server process opens the database on its own. */
async function prepare(target: DatabaseTarget) {
  const db = await openDatabase(target);
  try {
    await applyMigrations(db);
    const started = Date.now();
    const seeded = await seedWorkspace(db.prisma, MONITORS);
    // Fresh planner statistics, as a long-lived database would have them.
    await db.prisma.$executeRawUnsafe("ANALYZE");
    const version = (await db.prisma.$queryRawUnsafe<{ server_version: string }[]>("SHOW server_version"))[0]!.server_version;
    log(`seeded ${seeded.monitorIds.length} monitors in ${((Date.now() - started) / 1000).toFixed(1)} s (server ${version})`);
    return { ...seeded, version };
  } finally {
    await db.close();
  }
}

// ---- load ------------------------------------------------------------------------------------

/** CPU shares of the server process, PostgreSQL, Redis, this process (the load generator) and the rest (bench/support/machine.ts). */
function cpuMeter(serverPid: number): () => Cpu {
  const meter = machineCpuMeter({ server: () => processTicks(serverPid).ticks, postgres: postgresTicks, redis: redisTicks(new URL(redisServerUrl()).port) });
  return () => {
    const { server, postgres, redis, self, rest } = meter();
    return { server: server!, postgres: postgres!, redis: redis!, loadGenerator: self, rest };
  };
}

async function run(port: number, key: string, endpoint: ApiCall, seconds: number) {
  return load(port, loadRequest(endpoint, key), { connections: CONNECTIONS, seconds });
}

async function measure(backend: Backend, child: ChildProcess, port: number, key: string, endpoint: ApiCall): Promise<Figures> {
  // One call first, to see that the endpoint answers what it should, not just 200.
  await assertAnswers(port, endpoint, key);

  log(`${backend} ${endpoint.name}: warm-up ${WARMUP_SECONDS} s`);
  await run(port, key, endpoint, WARMUP_SECONDS);

  // Work that starts on the machine mid-run takes cores from the server: such a run is repeated. Waiting for a quiet
  // machine also lets the server finish the requests the warm-up left in flight before measuring.
  const measured = await leastDisturbed(
    `${backend} ${endpoint.name}`,
    async () => {
      log(`${backend} ${endpoint.name}: measuring ${SECONDS} s`);
      const cpu = cpuMeter(child.pid!);
      const measured = await run(port, key, endpoint, SECONDS);
      const figures: Figures = { backend, endpoint: endpoint.name, ...measured, rps: measured.requests / measured.seconds, cpu: cpu() };
      const { rps, p50, p99, max } = figures;
      log(`${backend} ${endpoint.name}: ${rps.toFixed(0)} req/s, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${max.toFixed(0)} ms`);
      return figures;
    },
    (figures) => figures.cpu.rest,
  );
  return measured.figures;
}

/** Each endpoint at each rate, the endpoints in turn at one rate so that they share the machine's conditions. */
async function measureAtRates(backend: Backend, child: ChildProcess, port: number, key: string, calls: ApiCall[]): Promise<AtRate[]> {
  const all: AtRate[] = [];
  for (const rate of RATES) {
    for (const endpoint of calls) {
      await waitForQuietMachine();
      log(`${backend} ${endpoint.name}: ${rate} req/s, ${RATE_WARMUP_SECONDS} s of warm-up then ${RATE_SECONDS} s measured`);
      let server: (() => Promise<ServerTiming>) | undefined;
      const { requests, seconds, p50, p99, max, loopDelay } = await pacedLoad(port, loadRequest(endpoint, key), {
        connections: CONNECTIONS,
        rate,
        warmUpSeconds: RATE_WARMUP_SECONDS,
        seconds: RATE_SECONDS,
        onMeasuring: () => (server = serverTiming(child)),
      });
      const figures: AtRate = { backend, endpoint: endpoint.name, rate, achieved: requests / seconds, p50, p99, max, server: await server!(), loadGeneratorLoopDelay: loopDelay };
      all.push(figures);
      log(
        `${backend} ${endpoint.name} at ${rate} req/s: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${max.toFixed(0)} ms; p99 / max ms: ` +
          `server handling ${tail(figures.server.handling)}, server loop delay ${tail(figures.server.loopDelay)}, load generator loop delay ${tail(loopDelay)}; ` +
          `server's GC (longest young · full): ${collections(figures.server.gc)}`,
      );
    }
  }
  return all;
}

async function benchmark(backend: Backend): Promise<{ figures: Figures[]; atRates: AtRate[]; version: string }> {
  log(`${backend}: creating and seeding the database`);
  const { target, remove } = await benchDatabase(backend, PG_DATABASE);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const { key, monitorIds, version } = await prepare(target);
    server = await startServer(target);
    const calls = endpoints(monitorIds);
    const figures: Figures[] = [];
    for (const endpoint of calls) figures.push(await measure(backend, server.child, server.port, key, endpoint));
    const atRates = await measureAtRates(backend, server.child, server.port, key, calls);
    return { figures, atRates, version };
  } finally {
    if (server) await stopServer(server.child);
    await remove();
  }
}

// ---- report ----------------------------------------------------------------------------------

function table(all: Figures[]): string {
  const rows = all.map((f) => {
    const baseline = all.find((b) => b.backend === f.backend && b.endpoint.startsWith("Health"))!;
    const share = f === baseline ? "100 % (baseline)" : `${((100 * f.rps) / baseline.rps).toFixed(1)} %`;
    const cpu = [f.cpu.server, f.cpu.postgres, f.cpu.redis, f.cpu.loadGenerator, f.cpu.rest].map((v) => v.toFixed(0)).join(" / ");
    return `| ${f.backend} | ${f.endpoint} | ${f.rps.toFixed(0)} | ${f.p50.toFixed(2)} | ${f.p99.toFixed(2)} | ${f.max.toFixed(0)} | ${share} | ${f.requests} | ${cpu} |`;
  });
  return [
    "| Backend | Endpoint | req/s | p50 (ms) | p99 (ms) | max (ms) | Share of baseline req/s | Requests (0 errors) | CPU %: server / PostgreSQL / Redis / load generator / rest |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}

function rateTable(all: AtRate[]): string {
  const rows = all.map((f) => {
    const baseline = all.find((b) => b.backend === f.backend && b.rate === f.rate && b.endpoint.startsWith("Health"))!;
    const goal = P99_GOALS[f.endpoint];
    const against = goal === undefined ? "" : `< ${goal}: ${f.p99 < goal ? "met" : "not met"}`;
    const beside = f === baseline ? "(baseline)" : baseline.p99.toFixed(2);
    const where = [f.server.handling, f.server.loopDelay, f.loadGeneratorLoopDelay].map(tail).join(" · ");
    return `| ${f.backend} | ${f.rate} | ${f.endpoint} | ${f.achieved.toFixed(0)} | ${f.p50.toFixed(2)} | ${f.p99.toFixed(2)} | ${f.max.toFixed(0)} | ${beside} | ${against} | ${where} | ${collections(f.server.gc)} |`;
  });
  return [
    "| Backend | Rate (req/s) | Endpoint | Answered req/s | p50 (ms) | p99 (ms) | max (ms) | Baseline p99 at this rate (ms) | p99 goal (ms) | p99 / max (ms): server handling · server loop delay · load generator loop delay | Server's GC: longest young collection (ms) · full collections (longest, ms) |",
    "|---|---:|---|---:|---:|---:|---:|---:|---|---|---|",
    ...rows,
  ].join("\n");
}

function machine(versions: Record<string, string>): string {
  return describeMachine(Object.entries(versions).map(([backend, version]) => `${backend} (Postgres ${version})`).join(", "));
}

async function main(): Promise<void> {
  assertBuilt("apps/control-plane", "packages/db", "packages/domain", "packages/proto", "packages/queue", "packages/logging");
  const all: Figures[] = [];
  const atRates: AtRate[] = [];
  const versions: Record<string, string> = {};
  for (const backend of BACKENDS) {
    const { figures, atRates: latencies, version } = await benchmark(backend);
    all.push(...figures);
    atRates.push(...latencies);
    versions[backend] = version;
  }
  const generated = [
    `Run on ${new Date().toISOString().slice(0, 10)}: ${machine(versions)}. Command: \`${process.env.BENCH_SERVER_NODE_ARGS ? `BENCH_SERVER_NODE_ARGS="${process.env.BENCH_SERVER_NODE_ARGS}" ` : ""}${MONITORS === SCENARIO_MONITORS ? "" : `BENCH_MONITORS=${MONITORS} `}BENCH_SECONDS=${SECONDS} BENCH_WARMUP_SECONDS=${WARMUP_SECONDS} ` +
      `BENCH_RATES=${RATES.join(",")} BENCH_RATE_SECONDS=${RATE_SECONDS} BENCH_RATE_WARMUP_SECONDS=${RATE_WARMUP_SECONDS} pnpm bench:api\` ` +
      `(${MONITORS} monitors in the workspace, ${CONNECTIONS} connections, HTTP/1.1 Connect JSON, ` +
      `PostgreSQL pool ${DEFAULT_POOL_SIZE} connections).`,
    "",
    "Throughput, closed loop (each connection sends its next request when it has the answer):",
    "",
    table(all),
    ...(atRates.length === 0
      ? []
      : [
          "",
          `Latency at fixed total rates, open loop (requests sent evenly spaced at the rate over up to ${CONNECTIONS} keep-alive ` +
            `connections, latency from when each was due; ${RATE_SECONDS} s each after ${RATE_WARMUP_SECONDS} s at the rate, bench/support/paced-load.ts, sent from a worker thread with a heap of its own):`,
          "",
          rateTable(atRates),
        ]),
  ].join("\n");
  process.stdout.write(`${table(all)}\n`);
  if (atRates.length > 0) process.stdout.write(`${rateTable(atRates)}\n`);
  if (process.env.BENCH_NO_DOC !== undefined) {
    log("BENCH_NO_DOC: docs/benchmarks.md left as it was");
  } else if (BACKENDS.length === 2) {
    const key = MONITORS === SCENARIO_MONITORS ? "api" : `api-${MONITORS}-monitors`;
    writeDocsBlock(key, "API throughput (issues 2 and 13)", "bench/api.ts", generated);
    log(`wrote ${path.relative(ROOT, DOCS)}`);
  } else {
    log("only some backends ran: docs/benchmarks.md left as it was");
  }
}

runBenchmark(main);
