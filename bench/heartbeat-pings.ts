// Heartbeat ping ingest (issue 39): pings sent at a fixed total rate (10,000 a second by default) across the
// ping URLs of many heartbeat monitors, over loopback, to the built control plane in a process of its own on
// PostgreSQL and real Redis, beside a trivial handler (a bare node:http server answering 200) measured in the same
// run at the same rate with the same sender. Per row: answered rate, p50/p99/max latency (from when each ping was
// due: bench/support/paced-load.ts), the CPU of the server, PostgreSQL, Redis and the sender, and the server's
// resident memory (peak during the row).
// Usage: pnpm bench:heartbeat-pings, with optional BENCH_RATES (10000,2000), BENCH_SECONDS (10),
// BENCH_WARMUP_SECONDS (2), BENCH_MONITORS (2000), BENCH_CONNECTIONS (128), VIGIL_TEST_POSTGRES_URL,
// VIGIL_TEST_REDIS_URL. Progress goes to stderr; the table to stdout and into docs/benchmarks.md.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { applyMigrations, DEFAULT_POOL_SIZE, openDatabase } from "@vigil/db";
import { LIMITS, parseHeartbeatConfig } from "@vigil/domain";
import { connectRedis } from "@vigil/queue";
import { Administration } from "@vigil/control-plane/admin/operations";
import { heartbeatColumns } from "@vigil/control-plane/monitors/repository";
import { dropDatabase, recreateDatabase } from "@vigil/local-servers/postgres";
import { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";
import { assertBuilt } from "./support/built";
import { writeDocsBlock } from "./support/doc";
import { type Cpu, cpuMeter, postgresTicks, processTicks, redisTicks, rssBytes, runOn, waitForQuietMachine } from "./support/machine";
import { pacedLoad, type PacedFigures } from "./support/paced-load";
import { parseExposition, sampleValue } from "./support/prometheus";
import { benchPrefix, log, runBenchmark } from "./support/run";
import { startServer, stopServer } from "./support/server-process";
import { commandLine, listSetting, numberSetting } from "./support/settings";
import { fmt } from "./support/stats";

const RATES = listSetting("RATES", [10_000, 2_000]);
const SECONDS = numberSetting("SECONDS", 10);
const WARMUP_SECONDS = numberSetting("WARMUP_SECONDS", 2);
const MONITORS = numberSetting("MONITORS", 2_000);
const CONNECTIONS = numberSetting("CONNECTIONS", 128);
const DATABASE = "vigil_bench_heartbeat_pings";

interface Row {
  target: "trivial handler" | "control plane";
  rate: number;
  run: PacedFigures;
  cpu: Cpu;
  rssPeakBytes: number;
  /** What the control plane counted during the row; null for the trivial handler. */
  stored: Counts | null;
}

/** Pings stored (vigil_heartbeat_pings_total) and the statements that stored them (vigil_heartbeat_ping_batch_size_count). */
interface Counts {
  pings: number;
  statements: number;
}

/** A bare node:http server answering 200, in a process of its own like the control plane. */
async function startTrivialHandler(): Promise<{ child: ChildProcess; port: number }> {
  const source = `require("node:http").createServer((req, res) => { req.resume(); res.end("OK\\n"); })
    .listen(0, "127.0.0.1", function () { process.send(this.address().port); });
    process.once("disconnect", () => process.exit(0));`;
  const child = spawn(process.execPath, ["-e", source], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (message) => resolve(Number(message)));
    child.once("exit", (code) => reject(new Error(`the trivial handler exited (${code}) before listening`)));
  });
  return { child, port };
}

/** Heartbeat monitors of one workspace, active and up, expecting a run an hour (no silence during the run): their ping tokens. */
async function seedHeartbeats(url: string): Promise<{ tokens: string[]; version: string }> {
  const db = await openDatabase({ kind: "postgres", url });
  try {
    await applyMigrations(db);
    const workspace = await new Administration(db.prisma).createWorkspace({ name: "Benchmark", slug: "bench" });
    const tokens = Array.from({ length: MONITORS }, () => randomBytes(24).toString("base64url"));
    for (let from = 0; from < MONITORS; from += 1_000) {
      await db.prisma.monitor.createMany({
        data: tokens.slice(from, from + 1_000).map((pingToken, i) => ({
          workspaceId: workspace.id,
          kind: "heartbeat" as const,
          pingToken,
          ...heartbeatColumns(parseHeartbeatConfig({ name: `job ${from + i}`, periodSeconds: 3_600, active: true })),
          // Already pinged and up, as a fleet of jobs is: a first ping would move each from unknown, once.
          status: "active",
          lastSuccessAt: new Date(),
        })),
      });
    }
    await db.prisma.$executeRawUnsafe("ANALYZE");
    const version = (await db.prisma.$queryRawUnsafe<{ server_version: string }[]>("SHOW server_version"))[0]!.server_version;
    return { tokens, version };
  } finally {
    await db.close();
  }
}

async function storedPings(port: number): Promise<Counts> {
  const samples = parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
  return {
    pings: ["success", "start", "fail"].reduce((sum, outcome) => sum + (sampleValue(samples, "vigil_heartbeat_pings_total", { outcome }) ?? 0), 0),
    statements: sampleValue(samples, "vigil_heartbeat_ping_batch_size_count") ?? 0,
  };
}

/** One row: `rate` pings a second for SECONDS after WARMUP_SECONDS, each to the next monitor's ping URL in turn. */
async function measure(target: Row["target"], child: ChildProcess, port: number, rate: number, tokens: string[], others: Record<string, () => number>): Promise<Row> {
  await waitForQuietMachine();
  const pid = child.pid!;
  const before = target === "control plane" ? await storedPings(port) : null;
  let rssPeakBytes = rssBytes(pid);
  const sampler = setInterval(() => (rssPeakBytes = Math.max(rssPeakBytes, rssBytes(pid))), 200);
  let meter: (() => Cpu) | undefined;
  try {
    const run = await pacedLoad(
      port,
      { method: "POST", path: "/" },
      {
        connections: CONNECTIONS,
        rate,
        warmUpSeconds: WARMUP_SECONDS,
        seconds: SECONDS,
        // Each token's share of the rate is under the limit of 10 a second per ping URL: a 429 would be a finding.
        expect: [200, 429],
        pathOf: (i) => `/v1/ping/${tokens[i % tokens.length]}`,
        onMeasuring: () => (meter = cpuMeter({ server: () => processTicks(pid).ticks, ...others })),
      },
    );
    const cpu = meter!();
    const after = before && (await storedPings(port));
    const stored = before && after && { pings: after.pings - before.pings, statements: after.statements - before.statements };
    log(`${target} at ${fmt(rate)}/s: ${fmt(run.requests / run.seconds)}/s answered, p50 ${run.p50.toFixed(2)} ms, p99 ${run.p99.toFixed(2)} ms, server CPU ${cpu.server!.toFixed(0)} %`);
    return { target, rate, run, cpu, rssPeakBytes, stored };
  } finally {
    clearInterval(sampler);
  }
}

async function run() {
  const prefix = benchPrefix();
  const url = await recreateDatabase(DATABASE);
  const redisUrl = redisServerUrl();
  const redis = connectRedis(redisUrl, "vigil-bench-heartbeat-pings");
  const others = { postgres: postgresTicks, redis: redisTicks(new URL(redisUrl).port) };
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let trivial: Awaited<ReturnType<typeof startTrivialHandler>> | undefined;
  try {
    const { tokens, version } = await seedHeartbeats(url);
    log(`seeded ${fmt(MONITORS)} heartbeat monitors`);
    server = await startServer({ kind: "postgres", url }, { BENCH_REDIS_PREFIX: prefix });
    trivial = await startTrivialHandler();
    const rows: Row[] = [];
    for (const rate of RATES) {
      rows.push(await measure("trivial handler", trivial.child, trivial.port, rate, tokens, others));
      rows.push(await measure("control plane", server.child, server.port, rate, tokens, others));
    }
    return { rows, version, redis: /redis_version:(\S+)/.exec(await redis.info("server"))?.[1] ?? "unknown" };
  } finally {
    if (trivial) trivial.child.disconnect();
    if (server) await stopServer(server.child);
    redis.disconnect();
    await deletePrefix(prefix);
    await dropDatabase(DATABASE);
  }
}

function table(rows: Row[]): string {
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const lines = rows.map((row) => {
    const baseline = rows.find((b) => b.rate === row.rate && b.target === "trivial handler")!;
    const answered = row.run.requests / row.run.seconds;
    const share = row === baseline ? "100 % (baseline)" : `${((100 * answered) / (baseline.run.requests / baseline.run.seconds)).toFixed(1)} %`;
    const ok = row.run.statuses["200"] ?? 0;
    const refused = row.run.statuses["429"] ?? 0;
    const cpu = [row.cpu.server!, row.cpu.postgres!, row.cpu.redis!, row.cpu.self, row.cpu.rest].map((v) => v.toFixed(0)).join(" / ");
    return (
      `| ${row.target} | ${fmt(row.rate)} | ${fmt(answered)} | ${share} | ${fmt(ok)} / ${fmt(refused)}${row.stored === null ? "" : ` (${fmt(row.stored.pings)} stored)`} | ` +
      `${row.stored === null ? "" : (row.stored.pings / row.stored.statements).toFixed(1)} | ` +
      `${row.run.p50.toFixed(2)} | ${row.run.p99.toFixed(2)} | ${fmt(row.run.max)} | ${cpu} | ${mib(row.rssPeakBytes)} |`
    );
  });
  return [
    "| Server | Rate sent (pings/s) | Answered (/s) | Share of baseline | 200 / 429 | Pings per statement | p50 (ms) | p99 (ms) | max (ms) | CPU %: server / PostgreSQL / Redis / sender / rest | Server RSS peak (MiB) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...lines,
  ].join("\n");
}

async function main(): Promise<void> {
  assertBuilt("apps/control-plane", "packages/db", "packages/domain", "packages/proto", "packages/queue", "packages/logging");
  const figures = await run();
  const markdown = table(figures.rows);
  process.stdout.write(`${markdown}\n`);
  writeDocsBlock(
    "heartbeat-pings",
    "Heartbeat pings (issue 39)",
    "bench/heartbeat-pings.ts",
    [
      `${runOn(`PostgreSQL ${figures.version}, Redis ${figures.redis}`)} Command: \`${commandLine("bench:heartbeat-pings")}\`. ` +
        `${fmt(MONITORS)} active heartbeat monitors, up (status active, a success stored); \`POST /v1/ping/<token>\` (no body) sent at a fixed total rate, each ping to the next ` +
        `monitor's URL in turn (so each URL gets rate / ${fmt(MONITORS)} a second, under the limit of ${LIMITS.pingsPerSecondPerToken} per URL), ` +
        `evenly spaced over at most ${CONNECTIONS} keep-alive HTTP/1.1 connections on loopback from a worker thread of the bench process ` +
        `(bench/support/paced-load.ts; latency from when each ping was due, so a saturated server's queue counts), ${WARMUP_SECONDS} s at the ` +
        `rate then ${SECONDS} s measured; "Answered" is the measured pings over the time until the last was answered. The control plane is ` +
        `the built one in a process of its own (PostgreSQL pool ${DEFAULT_POOL_SIZE}, the per-token limit in Redis as deployed); pings are ` +
        `stored in batches, one statement each (their monitors' row locks, the pings, pruning to the newest 100): a ping that arrives while ` +
        `none is being stored goes alone, those that arrive meanwhile go together in the next. The trivial handler is a bare node:http ` +
        `server answering 200 in a process of its own, measured at the same rate with the same sender right before. "stored" and "pings per ` +
        `statement" are the control plane's own counts (vigil_heartbeat_pings_total, vigil_heartbeat_ping_batch_size) over the row, warm-up included.`,
      "",
      markdown,
    ].join("\n"),
  );
  log("wrote the heartbeat-pings block of docs/benchmarks.md");
}

runBenchmark(main);
