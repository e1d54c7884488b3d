// People benchmark (issue 37): the sign-in rate with the chosen password hash beside the trivial
// Health/Check handler of the same server, and what a person's session costs an authenticated call
// (GetMonitor) compared with an API key, on PostgreSQL and on PGlite.
// Usage: pnpm bench:people, with optional BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3), BENCH_BACKENDS
// (postgres,pglite), BENCH_NO_DOC=1 (print only). Progress on stderr; the table on stdout and in docs/benchmarks.md.
import type { ChildProcess } from "node:child_process";
import { applyMigrations, openDatabase, type DatabaseTarget } from "@vigil/db";
import { SESSION_COOKIE } from "@vigil/domain";
import { hashPassword } from "@vigil/control-plane/auth/password";
import { seedWorkspace } from "./seed";
import { getMonitorCall, type ApiCall } from "./support/api-calls";
import { assertBuilt } from "./support/built";
import { benchDatabase } from "./support/database";
import { writeDocsBlock } from "./support/doc";
import { load, type LoadRequest } from "./support/load";
import { cpuMeter, describeMachine, leastDisturbed, postgresTicks, processTicks, redisTicks } from "./support/machine";
import { startServer, stopServer } from "./support/server-process";
import { log, runBenchmark } from "./support/run";
import { redisServerUrl } from "@vigil/local-servers/redis";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "postgres,pglite").split(",") as Backend[];
const MONITORS = 1_000;
/** Calls in flight for the authenticated calls, as bench/api.ts loads the API. */
const CONNECTIONS = 32;
/**
 * Sign-ins in flight: each one hashes for about 180 ms on a core, so a few saturate the server; more
 * would only queue, and would run into the per-address limit, which counts an attempt before its hash.
 */
const SIGN_IN_CONNECTIONS = 4;
const PASSWORD = "plum-harbour-lantern-42";
const EMAIL = "bench-person@example.com";
const PG_DATABASE = "vigil_bench_people";
/** The goal: a session adds less than this to an authenticated call's cost. */
const SESSION_GOAL = 0.1;

type Backend = "postgres" | "pglite";

interface Row {
  backend: Backend;
  what: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** CPU time of the server and the database per answered call, in ms. */
  cpuMsPerCall: number;
  /** Other processes' CPU (% of a core) during the run: a disturbed run reads high. */
  rest: number;
}

interface Scenario {
  what: string;
  connections: number;
  request: LoadRequest;
}

const json = { "content-type": "application/json" };

async function prepare(target: DatabaseTarget) {
  const db = await openDatabase(target);
  try {
    await applyMigrations(db);
    const { key, monitorIds } = await seedWorkspace(db.prisma, MONITORS);
    const workspace = await db.prisma.workspace.findUniqueOrThrow({ where: { slug: "bench" } });
    // A viewer acts with the read scope, as the seeded read key does: the same authorization, a person instead of a key.
    await db.prisma.user.create({
      data: { email: EMAIL, name: "Bench Person", passwordHash: await hashPassword(PASSWORD), memberships: { create: { workspaceId: workspace.id, role: "viewer" } } },
    });
    await db.prisma.$executeRawUnsafe("ANALYZE");
    return { key, monitorIds };
  } finally {
    await db.close();
  }
}

async function signIn(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/auth/sign-in`, { method: "POST", headers: json, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) });
  const token = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (res.status !== 200 || !token) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  return token;
}

function scenarios(monitorIds: string[], key: string, session: string): Scenario[] {
  const call = (c: ApiCall, headers: Record<string, string>): LoadRequest => ({ method: "POST", path: c.path, headers: { ...json, ...headers }, body: c.body });
  const health: ApiCall = { name: "Health/Check", path: "/grpc.health.v1.Health/Check", body: () => "{}", check: () => null };
  const getMonitor = getMonitorCall(monitorIds);
  const signInBody = JSON.stringify({ email: EMAIL, password: PASSWORD });
  return [
    { what: "Health/Check (baseline)", connections: CONNECTIONS, request: call(health, {}) },
    { what: "GetMonitor with an API key", connections: CONNECTIONS, request: call(getMonitor, { "x-service-key": key }) },
    { what: "GetMonitor with a session", connections: CONNECTIONS, request: call(getMonitor, { cookie: `${SESSION_COOKIE}=${session}` }) },
    { what: `Health/Check (baseline, ${SIGN_IN_CONNECTIONS} in flight)`, connections: SIGN_IN_CONNECTIONS, request: call(health, {}) },
    { what: `POST /v1/auth/sign-in (${SIGN_IN_CONNECTIONS} in flight)`, connections: SIGN_IN_CONNECTIONS, request: { method: "POST", path: "/v1/auth/sign-in", headers: json, body: () => signInBody } },
  ];
}

async function measure(backend: Backend, child: ChildProcess, port: number, scenario: Scenario): Promise<Row> {
  log(`${backend} ${scenario.what}: warm-up ${WARMUP_SECONDS} s`);
  await load(port, scenario.request, { connections: scenario.connections, seconds: WARMUP_SECONDS });
  const { figures } = await leastDisturbed(
    `${backend} ${scenario.what}`,
    async () => {
      const meter = cpuMeter({ server: () => processTicks(child.pid!).ticks, postgres: postgresTicks, redis: redisTicks(new URL(redisServerUrl()).port) });
      const measured = await load(port, scenario.request, { connections: scenario.connections, seconds: SECONDS });
      const cpu = meter();
      // PGlite runs inside the server process, so its share is in `server` there.
      const cpuMs = ((cpu.server! + cpu.postgres!) / 100) * measured.seconds * 1000;
      const row: Row = { backend, what: scenario.what, rps: measured.requests / measured.seconds, p50: measured.p50, p99: measured.p99, requests: measured.requests, cpuMsPerCall: cpuMs / measured.requests, rest: cpu.rest };
      log(`${backend} ${scenario.what}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, ${row.cpuMsPerCall.toFixed(3)} ms CPU a call`);
      return row;
    },
    (row) => row.rest,
  );
  return figures;
}

async function benchmark(backend: Backend): Promise<Row[]> {
  log(`${backend}: creating and seeding the database`);
  const { target, remove } = await benchDatabase(backend, PG_DATABASE);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const { key, monitorIds } = await prepare(target);
    server = await startServer(target);
    const session = await signIn(server.port);
    const rows: Row[] = [];
    for (const scenario of scenarios(monitorIds, key, session)) rows.push(await measure(backend, server.child, server.port, scenario));
    return rows;
  } finally {
    if (server) await stopServer(server.child);
    await remove();
  }
}

function table(rows: Row[]): string {
  const find = (backend: Backend, what: string) => rows.find((r) => r.backend === backend && r.what.startsWith(what))!;
  const lines = rows.map((r) => {
    let beside = "";
    if (r.what.startsWith("GetMonitor with a session")) {
      const byKey = find(r.backend, "GetMonitor with an API key");
      const added = r.cpuMsPerCall / byKey.cpuMsPerCall - 1;
      beside = `${added >= 0 ? "+" : ""}${(100 * added).toFixed(1)} % CPU a call over the key (goal < ${100 * SESSION_GOAL} %: ${added < SESSION_GOAL ? "met" : "not met"}); ${((100 * r.rps) / byKey.rps).toFixed(1)} % of its rate`;
    } else if (r.what.startsWith("POST /v1/auth/sign-in")) {
      beside = `${((100 * r.rps) / find(r.backend, "Health/Check (baseline, ").rps).toFixed(2)} % of the baseline's rate at ${SIGN_IN_CONNECTIONS} in flight`;
    }
    return `| ${r.backend} | ${r.what} | ${r.rps.toFixed(r.rps < 100 ? 1 : 0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.cpuMsPerCall.toFixed(3)} | ${beside} | ${r.requests} | ${r.rest.toFixed(0)} |`;
  });
  return [
    "| Backend | Call | req/s | p50 (ms) | p99 (ms) | CPU a call, server + database (ms) | Beside | Requests (0 errors) | Other work, % of a core |",
    "|---|---|---:|---:|---:|---:|---|---:|---:|",
    ...lines,
  ].join("\n");
}

async function main(): Promise<void> {
  assertBuilt("apps/control-plane", "packages/db", "packages/domain", "packages/proto", "packages/queue", "packages/logging");
  const rows: Row[] = [];
  for (const backend of BACKENDS) rows.push(...(await benchmark(backend)));
  const generated = [
    `Run on ${new Date().toISOString().slice(0, 10)}: ${describeMachine()}. Command: \`BENCH_SECONDS=${SECONDS} BENCH_WARMUP_SECONDS=${WARMUP_SECONDS} pnpm bench:people\` (${MONITORS} monitors; the person is a viewer and the key a read key; ` +
      `closed loop, HTTP/1.1 Connect JSON; passwords hashed with scrypt N=2^14, r=8, p=5).`,
    "",
    table(rows),
  ].join("\n");
  process.stdout.write(`${table(rows)}\n`);
  if (BACKENDS.length === 2) writeDocsBlock("people", "People: sign-in and sessions (issue 37)", "bench/people.ts", generated);
  else log("only some backends ran: docs/benchmarks.md left as it was");
}

runBenchmark(main);
