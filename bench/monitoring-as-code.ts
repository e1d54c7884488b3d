// Monitoring as code benchmark (issue 10): `vigil apply` of a file with 500 monitors, 20 channels and
// 5 status pages into an empty workspace, then a plan that finds nothing to change, beside the same
// 635 creates sent straight through the client library (the baseline) in the same run. The CLI runs
// as a subprocess (its wall time includes starting Node), the built control plane in a process of its
// own (bench/api-server.ts), and every call of both goes through a counting proxy
// (bench/monitoring-as-code/counting-proxy.ts). Each measurement gets a fresh workspace; a first,
// unreported round warms the server up.
// Usage: pnpm bench:apply, with optional BENCH_REPEATS (3), BENCH_BACKEND (postgres, or pglite),
// VIGIL_TEST_POSTGRES_URL (else scripts/ensure-postgres.sh), VIGIL_TEST_REDIS_URL (else a Redis on
// port 6391 via scripts/ensure-redis.sh), BENCH_CPU_PROF=<dir> (the server's CPU profile) and
// BENCH_CLI_CPU_PROF=<dir> (a CPU profile of each CLI run).
// Progress goes to stderr; the tables to stdout and, on PostgreSQL without profiling, into docs/benchmarks.md.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { applyMigrations, DEFAULT_POOL_SIZE, openDatabase, type DatabaseTarget } from "@vigil/db";
import { Administration } from "@vigil/control-plane/admin/operations";
import { createClient } from "@vigil/client";
import { log, runBenchmark } from "./support/run";
import { fmt, mean, median, spread } from "./support/stats";
import { startCountingProxy, preciseNow, type Call, type CountingProxy } from "./monitoring-as-code/counting-proxy";
import { rawCreates } from "./monitoring-as-code/raw-creates";
import {
  CHANNELS,
  COMPONENTS_PER_PAGE,
  CREATES,
  GROUPS_PER_PAGE,
  MONITORS,
  PAGES,
  SLACK_WEBHOOK,
  SLACK_WEBHOOK_ENV,
  SLUG_SUFFIX_ENV,
  STATIC_PER_PAGE,
  fileText,
  withVariables,
  workspaceFile,
} from "./monitoring-as-code/workspace-file";
import { assertBuilt } from "./support/built";
import { benchDatabase } from "./support/database";
import { DOCS, ROOT, writeDocsBlock } from "./support/doc";
import { type Cpu, cpuMeter, postgresTicks, processTicks, runOn, waitForQuietMachine } from "./support/machine";
import { startServer, stopServer, type ServerProcess } from "./support/server-process";
import { commandLine, numberSetting } from "./support/settings";

const REPEATS = numberSetting("REPEATS", 3);
const BACKEND = (process.env.BENCH_BACKEND ?? "postgres") as "postgres" | "pglite";
const DATABASE = "vigil_bench_monitoring_as_code";
const CLI = path.join(ROOT, "apps/cli/dist/main.js");
/** The issue's goals. */
const GOAL_RATIO = 1.5;
const GOAL_PLAN_SECONDS = 2;
/** Runs of `vigil --version` timed for the CLI's bare start-up. */
const STARTUPS = 5;

// ---- the CLI ---------------------------------------------------------------------------------

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall-clock ms (comparable with the proxy's) when the process was spawned and when it had exited. */
  spawned: number;
  exited: number;
  /** CPU seconds of the process, as last read before it exited. */
  cpuSeconds: number;
}

/** How often a CLI process's CPU ticks are read: what it spends after the last reading is missed. */
const CPU_POLL_MS = 10;

/** Settings of the machine running the bench that would leak into the CLI's. */
const CLEARED = ["SERVICE_API_KEY", "SERVICE_API_URL", "NO_COLOR", "FORCE_COLOR", "XDG_CONFIG_HOME", "NODE_OPTIONS"];

function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of CLEARED) delete env[name];
  return env;
}

function vigil(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const profile = process.env.BENCH_CLI_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(process.env.BENCH_CLI_CPU_PROF)}`] : [];
  const spawned = preciseNow();
  const child = spawn(process.execPath, [...profile, CLI, ...args], { env: { ...cleanEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // Node tells nothing of a child's CPU time once it has exited: read it while it runs.
  let ticks = 0;
  const poll = setInterval(() => {
    try {
      ticks = processTicks(child.pid!).ticks;
    } catch {
      // It has just exited.
    }
  }, CPU_POLL_MS);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      clearInterval(poll);
      resolve({ code, stdout, stderr, spawned, exited: preciseNow(), cpuSeconds: ticks / 100 });
    });
  });
}

/** apply's default number of calls in flight, as its help tells it: the baseline runs as many. */
async function applyParallelism(): Promise<number> {
  const help = await vigil(["apply", "--help"]);
  const match = /--parallelism <n>.*\(default: (\d+)\)/.exec(help.stdout);
  if (!match) throw new Error(`vigil apply --help names no default --parallelism:\n${help.stdout}`);
  return Number(match[1]);
}

// ---- the workspaces --------------------------------------------------------------------------

interface Workspace {
  key: string;
  /** Ends the slugs of its pages: slugs are unique across workspaces. */
  suffix: string;
}

/** Measurements each round makes, each in a workspace of its own. */
const KINDS = ["apply", "raw"] as const;
type Kind = (typeof KINDS)[number];

/** Migrates and makes an empty workspace with a write key per measurement (round 0 is the warm-up), then closes. */
async function prepare(target: DatabaseTarget): Promise<{ workspaces: Record<Kind, Workspace>[]; version: string }> {
  const db = await openDatabase(target);
  try {
    await applyMigrations(db);
    const admin = new Administration(db.prisma);
    const workspaces: Record<Kind, Workspace>[] = [];
    for (let round = 0; round <= REPEATS; round++) {
      const entries = await Promise.all(
        KINDS.map(async (kind) => {
          const slug = `bench-${kind}-${round}`;
          await admin.createWorkspace({ name: `Benchmark ${kind} ${round}`, slug });
          const { key } = await admin.createApiKey({ workspaceSlug: slug, scope: "write" });
          return [kind, { key, suffix: `${kind}-${round}` }] as const;
        }),
      );
      workspaces.push(Object.fromEntries(entries) as Record<Kind, Workspace>);
    }
    const version = (await db.prisma.$queryRawUnsafe<{ server_version: string }[]>("SHOW server_version"))[0]!.server_version;
    return { workspaces, version };
  } finally {
    await db.close();
  }
}

// ---- measuring -------------------------------------------------------------------------------

interface Measured {
  seconds: number;
  calls: Call[];
  cpu: Cpu;
  /** CPU time of the client (the CLI process, or this process for the baseline) over wall time, in % of one core. */
  client: number;
}

/** A CLI run's time split by what the proxy saw, in ms: spawning to the first call, reading the workspace, planning, creating, and after the last call. */
interface Timeline {
  startup: number;
  reads: number;
  planning: number;
  creates: number;
  exit: number;
}

interface CliMeasured extends Measured {
  timeline: Timeline;
}

interface Round {
  apply: CliMeasured;
  plan: CliMeasured;
  raw: Measured;
}

/** The verb of a call's method: list, create, ..., or other. */
const verbOf = (call: Call) => /\/(List|Create|Get|Update|Delete|Publish|Unpublish)?[A-Za-z]*$/.exec(call.path)?.[1]?.toLowerCase() ?? "other";

function byVerb(calls: Call[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of calls) counts[verbOf(call)] = (counts[verbOf(call)] ?? 0) + 1;
  return counts;
}

const describeCalls = (calls: Call[]) =>
  Object.entries(byVerb(calls))
    .map(([verb, count]) => `${count} ${verb}`)
    .join(", ");

function timeline(run: CliRun, calls: Call[]): Timeline {
  const ends = (list: Call[]) => Math.max(...list.map((call) => call.end));
  const starts = (list: Call[]) => Math.min(...list.map((call) => call.start));
  const creates = calls.filter((call) => verbOf(call) === "create");
  const first = starts(calls);
  const readsEnd = ends(calls.filter((call) => verbOf(call) === "list"));
  const createsStart = creates.length > 0 ? starts(creates) : readsEnd;
  const last = ends(calls);
  return { startup: first - run.spawned, reads: readsEnd - first, planning: createsStart - readsEnd, creates: last - createsStart, exit: run.exited - last };
}

/** Fails the run when the proxy saw a call the API refused, or other calls than expected. */
function expectCalls(what: string, calls: Call[], expected: Record<string, number>): void {
  const refused = calls.filter((call) => call.status !== 200);
  if (refused.length > 0) throw new Error(`${what}: ${refused.length} calls refused, e.g. ${refused[0]!.path} → ${refused[0]!.status}`);
  for (const [verb, count] of Object.entries(expected)) {
    if ((byVerb(calls)[verb] ?? 0) !== count) throw new Error(`${what}: expected ${count} ${verb} calls, saw ${describeCalls(calls)}`);
  }
}

function meter(server: ServerProcess, proxyPid: number) {
  return cpuMeter({ server: () => processTicks(server.child.pid!).ticks, postgres: postgresTicks, proxy: () => processTicks(proxyPid).ticks });
}

function assertCli(what: string, run: CliRun, expectOut: string): void {
  if (run.code !== 0 || !run.stdout.includes(expectOut)) {
    throw new Error(`${what} exited ${run.code} without "${expectOut}":\n${run.stderr}\n${run.stdout.slice(-2_000)}`);
  }
}

interface Setup {
  server: ServerProcess;
  proxy: CountingProxy;
  dir: string;
  file: string;
  parallelism: number;
}

async function measureApply(setup: Setup, ws: Workspace): Promise<Pick<Round, "apply" | "plan">> {
  const env = { HOME: setup.dir, SERVICE_API_KEY: ws.key, [SLUG_SUFFIX_ENV]: ws.suffix, [SLACK_WEBHOOK_ENV]: SLACK_WEBHOOK };
  const api = ["-f", setup.file, "--api-url", setup.proxy.url];
  await waitForQuietMachine();
  await setup.proxy.take();
  let cpu = meter(setup.server, setup.proxy.pid);
  const applied = await vigil(["apply", ...api], env);
  const applyCpu = cpu();
  assertCli("vigil apply", applied, `Applied: ${CREATES} created, 0 changed, 0 replaced, 0 deleted.`);
  const applyCalls = await setup.proxy.take();
  expectCalls("vigil apply", applyCalls, { create: CREATES });

  await waitForQuietMachine();
  cpu = meter(setup.server, setup.proxy.pid);
  const planned = await vigil(["plan", ...api], env);
  const planCpu = cpu();
  assertCli("vigil plan", planned, "No changes");
  const planCalls = await setup.proxy.take();
  expectCalls("vigil plan", planCalls, { create: 0 });

  const detailed = await vigil(["plan", "--detailed-exitcode", ...api], env);
  if (detailed.code !== 0) throw new Error(`vigil plan --detailed-exitcode exited ${detailed.code} after apply:\n${detailed.stderr}${detailed.stdout.slice(0, 2_000)}`);
  await setup.proxy.take();

  const measured = (run: CliRun, calls: Call[], cpu: Cpu): CliMeasured => {
    const seconds = (run.exited - run.spawned) / 1000;
    return { seconds, calls, cpu, client: (100 * run.cpuSeconds) / seconds, timeline: timeline(run, calls) };
  };
  return { apply: measured(applied, applyCalls, applyCpu), plan: measured(planned, planCalls, planCpu) };
}

async function measureRaw(setup: Setup, ws: Workspace): Promise<Measured> {
  const send = rawCreates(withVariables(workspaceFile(), { [SLUG_SUFFIX_ENV]: ws.suffix, [SLACK_WEBHOOK_ENV]: SLACK_WEBHOOK }), setup.parallelism);
  const client = createClient({ apiKey: ws.key, baseUrl: setup.proxy.url });
  await waitForQuietMachine();
  await setup.proxy.take();
  const cpu = meter(setup.server, setup.proxy.pid);
  const started = performance.now();
  await send(client);
  const seconds = (performance.now() - started) / 1000;
  const measuredCpu = cpu();
  const calls = await setup.proxy.take();
  expectCalls("the raw creates", calls, { create: CREATES, list: 0 });
  return { seconds, calls, cpu: measuredCpu, client: measuredCpu.self };
}

/** Wall seconds of `STARTUPS` runs of `node <args>`, e.g. `vigil --version`: Node's start and the CLI's loading, no call. */
async function startupSeconds(args: string[]): Promise<number[]> {
  await waitForQuietMachine();
  const times: number[] = [];
  for (let i = 0; i < STARTUPS; i++) {
    const spawned = preciseNow();
    const child = spawn(process.execPath, args, { env: cleanEnv(), stdio: "ignore" });
    const code = await new Promise<number | null>((resolve, reject) => child.once("error", reject).once("close", resolve));
    if (code !== 0) throw new Error(`node ${args.join(" ")} exited ${code}`);
    times.push((preciseNow() - spawned) / 1000);
  }
  return times;
}

async function run() {
  const { target, remove } = await benchDatabase(BACKEND, DATABASE);
  const dir = mkdtempSync(path.join(os.tmpdir(), "vigil-bench-code-"));
  let server: ServerProcess | undefined;
  let proxy: CountingProxy | undefined;
  try {
    log(`${BACKEND}: migrating and creating ${2 * (REPEATS + 1)} empty workspaces`);
    const { workspaces, version } = await prepare(target);
    const file = path.join(dir, "vigil.yaml");
    const text = fileText(workspaceFile());
    writeFileSync(file, text);
    log(`wrote ${file}: ${MONITORS} monitors, ${CHANNELS} channels, ${PAGES} pages (${fmt(Buffer.byteLength(text) / 1024)} KiB, ${text.split("\n").length} lines)`);
    server = await startServer(target);
    proxy = await startCountingProxy(server.port);
    const setup: Setup = { server, proxy, dir, file, parallelism: await applyParallelism() };

    const rounds: Round[] = [];
    for (const [round, ws] of workspaces.entries()) {
      const name = round === 0 ? "warm-up" : `round ${round}/${REPEATS}`;
      // Alternating which goes first spreads any drift of the server (its caches, PostgreSQL's) over both.
      const measured: Partial<Round> = {};
      for (const kind of round % 2 === 0 ? KINDS : [...KINDS].reverse()) {
        if (kind === "apply") {
          log(`${name}: vigil apply from empty, then vigil plan`);
          const { apply, plan } = await measureApply(setup, ws.apply);
          Object.assign(measured, { apply, plan });
          log(`${name}: apply ${apply.seconds.toFixed(2)} s (${describeCalls(apply.calls)}), plan ${plan.seconds.toFixed(2)} s (${describeCalls(plan.calls)})`);
        } else {
          log(`${name}: the same creates through the client library, ${setup.parallelism} at a time`);
          measured.raw = await measureRaw(setup, ws.raw);
          log(`${name}: raw creates ${measured.raw.seconds.toFixed(2)} s (${describeCalls(measured.raw.calls)})`);
        }
      }
      if (round > 0) rounds.push(measured as Round);
    }
    log(`vigil --version and node -e "", ${STARTUPS} times each`);
    const startup = { cli: await startupSeconds([CLI, "--version"]), node: await startupSeconds(["-e", ""]) };
    return { rounds, startup, version, parallelism: setup.parallelism, fileLines: text.split("\n").length };
  } finally {
    await proxy?.close();
    if (server) await stopServer(server.child);
    await remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- the report ------------------------------------------------------------------------------

type Figures = Awaited<ReturnType<typeof run>>;


/** Mean CPU shares over the rounds: server / PostgreSQL / proxy / client / the rest of the machine. */
function cpuColumn(measured: Measured[]): string {
  const shares = [(m: Measured) => m.cpu.server!, (m: Measured) => m.cpu.postgres!, (m: Measured) => m.cpu.proxy!, (m: Measured) => m.client, (m: Measured) => m.cpu.rest + m.cpu.self - m.client];
  return shares.map((share) => mean(measured.map((m) => Math.max(0, share(m)))).toFixed(0)).join(" / ");
}

function tables(f: Figures): { markdown: string; ratio: number; planSeconds: number } {
  const of = <K extends keyof Round>(kind: K) => f.rounds.map((round) => round[kind]);
  const seconds = (kind: keyof Round) => of(kind).map((m) => m.seconds);
  const ratio = median(seconds("apply")) / median(seconds("raw"));
  const planSeconds = median(seconds("plan"));
  const row = (what: string, kind: keyof Round) =>
    `| ${what} | ${median(seconds(kind)).toFixed(2)} | ${spread(seconds(kind))} | ${describeCalls(of(kind)[0]!.calls)} | ${cpuColumn(of(kind))} |`;
  const phases = (kind: "apply" | "plan") => {
    const t = (pick: (timeline: Timeline) => number) => fmt(median(of(kind).map((m) => pick(m.timeline))));
    return `| \`vigil ${kind}\` | ${t((x) => x.startup)} | ${t((x) => x.reads)} | ${t((x) => x.planning)} | ${t((x) => x.creates)} | ${t((x) => x.exit)} |`;
  };
  const createRate = (kind: "apply" | "raw") =>
    fmt(median(of(kind).map((m) => CREATES / ((kind === "apply" ? (m as CliMeasured).timeline.creates / 1000 : m.seconds)))));
  const markdown = [
    "| Measurement | Wall time, median (s) | Spread over the rounds (s) | API calls (each round) | CPU % of a core, mean: server / PostgreSQL / proxy / client / rest |",
    "|---|---:|---:|---|---:|",
    row("`vigil apply -f vigil.yaml` into an empty workspace (a subprocess: Node's start included)", "apply"),
    row(`The same ${CREATES} creates through @vigil/client from the bench process, ${f.parallelism} at a time (baseline)`, "raw"),
    row("`vigil plan -f vigil.yaml` right after: No changes", "plan"),
    `| \`vigil --version\`: the CLI's bare start-up (${STARTUPS} runs, no call) | ${median(f.startup.cli).toFixed(2)} | ${spread(f.startup.cli)} | none | |`,
    `| \`node -e ""\`: Node's own start, for comparison (${STARTUPS} runs) | ${median(f.startup.node).toFixed(2)} | ${spread(f.startup.node)} | none | |`,
    "",
    `**apply / baseline: ${ratio.toFixed(2)}x** (per round: ${f.rounds.map((r) => (r.apply.seconds / r.raw.seconds).toFixed(2)).join(", ")}); ` +
      `goal ${GOAL_RATIO}x or less: **${ratio <= GOAL_RATIO ? "met" : "missed"}**. ` +
      `No-change plan: **${planSeconds.toFixed(2)} s**; goal under ${GOAL_PLAN_SECONDS} s: **${planSeconds < GOAL_PLAN_SECONDS ? "met" : "missed"}**. ` +
      `\`vigil plan --detailed-exitcode\` exited 0 after every apply.`,
    "",
    "Where a CLI run's time goes (median ms over the rounds), from the calls the proxy saw:",
    "",
    "| Run | Spawn → first call | Reading the workspace (list calls) | Last read → first create | Creates | Last call → exit |",
    "|---|---:|---:|---:|---:|---:|",
    phases("apply"),
    phases("plan"),
    "",
    `Creates per second: ${createRate("apply")} during apply's creates, ${createRate("raw")} in the baseline.`,
  ].join("\n");
  return { markdown, ratio, planSeconds };
}

async function main(): Promise<void> {
  assertBuilt("apps/cli", "apps/control-plane", "packages/client", "packages/db", "packages/domain", "packages/proto", "packages/queue", "packages/logging");
  const figures = await run();
  const { markdown } = tables(figures);
  process.stdout.write(`${markdown}\n`);
  if (BACKEND !== "postgres" || process.env.BENCH_CPU_PROF || process.env.BENCH_CLI_CPU_PROF) {
    log("not the default database, or profiled: docs/benchmarks.md left as it was");
    return;
  }
  writeDocsBlock(
    "monitoring-as-code",
    "Monitoring as code (issue 10)",
    "bench/monitoring-as-code.ts",
    [
      `${runOn(`PostgreSQL ${figures.version}`)} Command: \`${commandLine("bench:apply")}\`. A generated vigil.yaml (${figures.fileLines} lines) of ${MONITORS} monitors ` +
        `(70 % HTTP, 20 % TCP, 10 % DNS; one to four regions, assertions, headers and descriptions on some; none active, targets ` +
        `under example.com and example.net), ${CHANNELS} Slack, Discord and webhook channels each sending the alerts of ${MONITORS / CHANNELS} monitors ` +
        `(some secrets from the environment), and ${PAGES} status pages of ${GROUPS_PER_PAGE} groups and ${COMPONENTS_PER_PAGE} components ` +
        `(${COMPONENTS_PER_PAGE - STATIC_PER_PAGE} showing monitors, ${STATIC_PER_PAGE} static): ${CREATES} objects. The built control plane in a process of its own (PostgreSQL pool ` +
        `${DEFAULT_POOL_SIZE}); every call of the CLI and of the baseline goes through a counting HTTP proxy on ` +
        `127.0.0.1 in a process of its own, which streams requests and answers through and notes each call. Each measurement gets a ` +
        `fresh workspace; ${REPEATS} rounds after an unreported warm-up round, the order of apply and baseline alternating. ` +
        `apply runs at its default --parallelism (${figures.parallelism}); the baseline sends the same create requests (built before ` +
        `its clock starts) ${figures.parallelism} at a time, monitors first, then channels and pages, then groups, then components, and ` +
        `includes no process start: the CLI's bare start-up is the \`vigil --version\` row. Before each measurement the bench waits ` +
        `for the machine to be quiet (under 15 % busy); the CLI's CPU time is read from /proc every ${CPU_POLL_MS} ms while it runs; ` +
        `"rest" is the rest of the machine (this bench process, the kernel, other work).`,
      "",
      markdown,
    ].join("\n"),
  );
  log(`wrote the monitoring-as-code block of ${path.relative(ROOT, DOCS)}`);
}

runBenchmark(main);
