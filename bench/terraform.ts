// Terraform provider benchmark (issue 11): the provider's launch (spawn to handshake, the goal is
// under 150 ms) beside `node -e ""`, and `terraform apply` of 50 monitors, 5 channels and a status
// page with a group and 20 components into an empty workspace, then a `terraform plan` with no
// changes, beside `vigil apply -f vigil.yaml` of the same objects into another empty workspace and
// its no-change `vigil plan`, in the same run. terraform is the real binary, pointed at the built
// provider by dev_overrides through a wrapper that notes every launch, so each command's launch
// count is known. Each measurement gets a fresh workspace; a first, unreported round warms up.
// Usage: pnpm bench:terraform, with optional BENCH_REPEATS (3), BENCH_LAUNCHES (20), BENCH_BACKEND
// (postgres, or pglite), VIGIL_TEST_POSTGRES_URL (else scripts/ensure-postgres.sh), TERRAFORM_BINARY.
// Progress goes to stderr; the tables to stdout and, on PostgreSQL, into docs/benchmarks.md.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { applyMigrations, openDatabase, type DatabaseTarget } from "@vigil/db";
import { Administration } from "@vigil/control-plane/admin/operations";
import { log, runBenchmark } from "./support/run";
import { median, spread } from "./support/stats";
import { assertBuilt } from "./support/built";
import { benchDatabase } from "./support/database";
import { DOCS, ROOT, writeDocsBlock } from "./support/doc";
import { runOn, waitForQuietMachine } from "./support/machine";
import { startServer, stopServer, type ServerProcess } from "./support/server-process";
import { CHANNELS, COMPONENTS, CREATES, MONITORS, terraformConfiguration, vigilFile } from "./terraform/configuration";
import { measureLaunches } from "./terraform/launch";
import { commandLine, numberSetting } from "./support/settings";

const REPEATS = numberSetting("REPEATS", 3);
const LAUNCHES = numberSetting("LAUNCHES", 20);
const BACKEND = (process.env.BENCH_BACKEND ?? "postgres") as "postgres" | "pglite";
const DATABASE = "vigil_bench_terraform";
const TERRAFORM = process.env.TERRAFORM_BINARY ?? "terraform";
const PROVIDER = path.join(ROOT, "apps/terraform-provider/dist/terraform-provider-service");
const CLI = path.join(ROOT, "apps/cli/dist/main.js");
/** The issue's goal for the launch, in ms. */
const GOAL_LAUNCH_MS = 150;

/** Settings of the machine running the bench that would change what terraform, the provider or the CLI does. */
const CLEARED = /^(TF_|SERVICE_API_|PLUGIN_|NODE_OPTIONS$|NO_COLOR$|FORCE_COLOR$|XDG_CONFIG_HOME$)/;

// ---- commands --------------------------------------------------------------------------------

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

function runCommand(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Run> {
  const started = performance.now();
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 }));
  });
}

function expectRun(what: string, run: Run, code: number, output: string): void {
  if (run.code !== code || !run.stdout.includes(output)) {
    throw new Error(`${what} exited ${run.code} (expected ${code}) without "${output}":\n${run.stderr}\n${run.stdout.slice(-3_000)}`);
  }
}

const baseEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !CLEARED.test(name)));

// ---- terraform -------------------------------------------------------------------------------

/**
 * The folder dev_overrides names: a wrapper by the provider's name that notes each launch in a
 * file, then execs the built provider (so go-plugin talks to the provider itself).
 */
function providerWrapper(dir: string): { folder: string; launches: () => number } {
  const folder = path.join(dir, "provider");
  const counter = path.join(dir, "launches");
  mkdirSync(folder);
  writeFileSync(counter, "");
  const wrapper = path.join(folder, "terraform-provider-service");
  writeFileSync(wrapper, `#!/bin/sh\necho launch >> '${counter}'\nexec '${PROVIDER}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  return { folder, launches: () => readFileSync(counter, "utf8").split("\n").filter(Boolean).length };
}

interface Measured {
  seconds: number;
  /** Provider launches (terraform) during the command. */
  launches?: number;
}

interface Round {
  terraformApply: Measured;
  terraformPlan: Measured;
  vigilApply: Measured;
  vigilPlan: Measured;
}

interface Workspace {
  key: string;
  suffix: string;
}

async function measureTerraform(dir: string, baseUrl: string, ws: Workspace): Promise<Pick<Round, "terraformApply" | "terraformPlan">> {
  const work = mkdtempSync(path.join(dir, "terraform-"));
  const { folder, launches } = providerWrapper(work);
  const cliConfig = path.join(work, "terraform.rc");
  writeFileSync(cliConfig, `provider_installation {\n  dev_overrides {\n    "registry.terraform.io/vigil/service" = "${folder}"\n  }\n  direct {}\n}\n`);
  writeFileSync(path.join(work, "main.tf"), terraformConfiguration(baseUrl, ws.suffix));
  const env = { ...baseEnv(), HOME: work, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1", TF_INPUT: "0", SERVICE_API_TOKEN: ws.key };
  const terraform = async (args: string[], code: number, output: string): Promise<Measured> => {
    const before = launches();
    const run = await runCommand(TERRAFORM, [...args, "-no-color"], { cwd: work, env });
    expectRun(`terraform ${args.join(" ")}`, run, code, output);
    return { seconds: run.seconds, launches: launches() - before };
  };
  const terraformApply = await terraform(["apply", "-auto-approve"], 0, `Apply complete! Resources: ${CREATES} added, 0 changed, 0 destroyed.`);
  const terraformPlan = await terraform(["plan", "-detailed-exitcode"], 0, "No changes.");
  return { terraformApply, terraformPlan };
}

async function measureVigil(dir: string, baseUrl: string, ws: Workspace): Promise<Pick<Round, "vigilApply" | "vigilPlan">> {
  const work = mkdtempSync(path.join(dir, "vigil-"));
  const file = path.join(work, "vigil.yaml");
  writeFileSync(file, vigilFile(ws.suffix));
  const env = { ...baseEnv(), HOME: work, SERVICE_API_KEY: ws.key };
  const vigil = async (args: string[], output: string): Promise<Measured> => {
    const run = await runCommand(process.execPath, [CLI, ...args, "-f", file, "--api-url", baseUrl], { cwd: work, env });
    expectRun(`vigil ${args.join(" ")}`, run, 0, output);
    return { seconds: run.seconds };
  };
  const vigilApply = await vigil(["apply"], `Applied: ${CREATES} created, 0 changed, 0 replaced, 0 deleted.`);
  const vigilPlan = await vigil(["plan", "--detailed-exitcode"], "No changes");
  return { vigilApply, vigilPlan };
}

// ---- the run ---------------------------------------------------------------------------------

const TOOLS = ["terraform", "vigil"] as const;

/** Migrates and makes an empty workspace with a write key per tool and round (round 0 is the warm-up), then closes. */
async function prepare(target: DatabaseTarget): Promise<{ workspaces: Record<(typeof TOOLS)[number], Workspace>[]; version: string }> {
  const db = await openDatabase(target);
  try {
    await applyMigrations(db);
    const admin = new Administration(db.prisma);
    const workspaces: Record<(typeof TOOLS)[number], Workspace>[] = [];
    for (let round = 0; round <= REPEATS; round++) {
      const entries = await Promise.all(
        TOOLS.map(async (tool) => {
          const slug = `bench-${tool}-${round}`;
          await admin.createWorkspace({ name: `Benchmark ${tool} ${round}`, slug });
          const { key } = await admin.createApiKey({ workspaceSlug: slug, scope: "write" });
          return [tool, { key, suffix: `${tool}-${round}` }] as const;
        }),
      );
      workspaces.push(Object.fromEntries(entries) as Record<(typeof TOOLS)[number], Workspace>);
    }
    const version = BACKEND === "postgres" ? (await db.prisma.$queryRawUnsafe<{ server_version: string }[]>("SHOW server_version"))[0]!.server_version : "";
    return { workspaces, version };
  } finally {
    await db.close();
  }
}

async function run() {
  const terraformVersion = (JSON.parse(execFileSync(TERRAFORM, ["version", "-json"], { env: { ...baseEnv(), CHECKPOINT_DISABLE: "1" } }).toString()) as { terraform_version: string }).terraform_version;
  await waitForQuietMachine();
  log(`the provider's launch and node -e "", ${LAUNCHES} times each`);
  const launch = await measureLaunches(PROVIDER, LAUNCHES);
  log(
    `launch: handshake ${median(launch.provider.map((l) => l.handshake)).toFixed(0)} ms, first answer ${median(launch.provider.map((l) => l.schema)).toFixed(0)} ms, ` +
      `node ${median(launch.node).toFixed(0)} ms (medians)`,
  );

  const { target, remove } = await benchDatabase(BACKEND, DATABASE);
  const dir = mkdtempSync(path.join(os.tmpdir(), "vigil-bench-terraform-"));
  let server: ServerProcess | undefined;
  try {
    log(`${BACKEND}: migrating and creating ${2 * (REPEATS + 1)} empty workspaces`);
    const { workspaces, version } = await prepare(target);
    server = await startServer(target);
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const rounds: Round[] = [];
    for (const [round, ws] of workspaces.entries()) {
      const name = round === 0 ? "warm-up" : `round ${round}/${REPEATS}`;
      await waitForQuietMachine();
      // Alternating which goes first spreads any drift of the server (its caches, PostgreSQL's) over both.
      const measured: Partial<Round> = {};
      for (const tool of round % 2 === 0 ? TOOLS : [...TOOLS].reverse()) {
        if (tool === "terraform") Object.assign(measured, await measureTerraform(dir, baseUrl, ws.terraform));
        else Object.assign(measured, await measureVigil(dir, baseUrl, ws.vigil));
      }
      const m = measured as Round;
      log(
        `${name}: terraform apply ${m.terraformApply.seconds.toFixed(2)} s (${m.terraformApply.launches} launches), plan ${m.terraformPlan.seconds.toFixed(2)} s ` +
          `(${m.terraformPlan.launches}); vigil apply ${m.vigilApply.seconds.toFixed(2)} s, plan ${m.vigilPlan.seconds.toFixed(2)} s`,
      );
      if (round > 0) rounds.push(m);
    }
    return { launch, rounds, version, terraformVersion };
  } finally {
    if (server) await stopServer(server.child);
    await remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- the report ------------------------------------------------------------------------------

type Figures = Awaited<ReturnType<typeof run>>;


function tables(f: Figures): string {
  const handshakes = f.launch.provider.map((l) => l.handshake);
  const answers = f.launch.provider.map((l) => l.schema);
  const launchMs = median(handshakes);
  const of = (kind: keyof Round) => f.rounds.map((round) => round[kind]);
  const launches = (kind: keyof Round) => [...new Set(of(kind).map((m) => m.launches))].join(" or ");
  const row = (what: string, kind: keyof Round) => {
    const seconds = of(kind).map((m) => m.seconds);
    return `| ${what} | ${median(seconds).toFixed(2)} | ${spread(seconds, 2)} | ${kind.startsWith("terraform") ? launches(kind) : "—"} |`;
  };
  const markdown = [
    `| Launch (${LAUNCHES} runs each, alternating) | Median (ms) | Spread (ms) |`,
    "|---|---:|---:|",
    `| The provider: spawn to the handshake line on stdout | ${launchMs.toFixed(0)} | ${spread(handshakes, 0)} |`,
    `| The provider: spawn to the end of the answer to its first call, GetProviderSchema (mutual TLS included) | ${median(answers).toFixed(0)} | ${spread(answers, 0)} |`,
    `| \`node -e ""\`: spawn to exit, Node's own start for comparison | ${median(f.launch.node).toFixed(0)} | ${spread(f.launch.node, 0)} |`,
    "",
    `**Launch: ${launchMs.toFixed(0)} ms**; goal under ${GOAL_LAUNCH_MS} ms: **${launchMs < GOAL_LAUNCH_MS ? "met" : "missed"}** ` +
      `(the provider's own share, over \`node -e ""\`: ${(launchMs - median(f.launch.node)).toFixed(0)} ms).`,
    "",
    `| Command (${REPEATS} rounds, each into an empty workspace) | Wall time, median (s) | Spread (s) | Provider launches |`,
    "|---|---:|---:|---:|",
    row(`\`terraform apply -auto-approve\`: ${CREATES} resources created`, "terraformApply"),
    row("`terraform plan -detailed-exitcode` right after: No changes (refreshes every resource)", "terraformPlan"),
    row(`\`vigil apply -f vigil.yaml\`: the same ${CREATES} objects`, "vigilApply"),
    row("`vigil plan --detailed-exitcode -f vigil.yaml` right after: No changes", "vigilPlan"),
  ].join("\n");
  return markdown;
}

async function main(): Promise<void> {
  assertBuilt("apps/cli", "apps/control-plane", "packages/client", "packages/db", "packages/domain", "packages/proto", "packages/queue", "packages/logging");
  if (!existsSync(PROVIDER)) throw new Error(`${PROVIDER} is missing: cd apps/terraform-provider && pnpm -s build`);
  const figures = await run();
  const markdown = tables(figures);
  process.stdout.write(`${markdown}\n`);
  if (BACKEND !== "postgres") {
    log("not the default database: docs/benchmarks.md left as it was");
    return;
  }
  writeDocsBlock(
    "terraform",
    "Terraform provider (issue 11)",
    "bench/terraform.ts",
    [
      `${runOn(`PostgreSQL ${figures.version}, Terraform ${figures.terraformVersion}`)} Command: \`${commandLine("bench:terraform")}\`. The launch: the built provider (apps/terraform-provider/dist: the ` +
        `launcher, which announces its socket before loading provider.cjs with its V8 code cache) started with go-plugin's environment (magic cookie, PLUGIN_PROTOCOL_VERSIONS=6, a client certificate), timed from ` +
        `spawn to its handshake line, which is when Terraform starts calling it (the issue's measure), and on to the end of the answer to ` +
        `GetProviderSchema, the first call of a command (connecting with mutual TLS included; what the launcher leaves ` +
        `for after the handshake, loading the provider, is paid there). The commands: ${MONITORS} monitors (HTTP and TCP, none ` +
        `active, targets under example.com), ${CHANNELS} Slack and webhook channels each sending the alerts of ${MONITORS / CHANNELS} monitors, ` +
        `and a status page with a group and ${COMPONENTS} components, as a Terraform configuration and as a vigil.yaml (bench/terraform/configuration.ts). ` +
        `The built control plane runs in a process of its own; terraform (default -parallelism, 10) finds the provider through dev_overrides ` +
        `with CHECKPOINT_DISABLE=1 and an empty HOME, via a shell wrapper that counts its launches; vigil is \`node apps/cli/dist/main.js\` ` +
        `(Node's start included). Each command pair gets fresh workspaces; ${REPEATS} rounds after an unreported warm-up, the order of ` +
        `terraform and vigil alternating.`,
      "",
      markdown,
    ].join("\n"),
  );
  log(`wrote the terraform block of ${path.relative(ROOT, DOCS)}`);
}

runBenchmark(main);
