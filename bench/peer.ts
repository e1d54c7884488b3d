// Vigil's cost per check beside blackbox_exporter + Prometheus (issue 36): the same loopback targets (half answer
// after 20 ms, half after 200 ms; bench/peer/target.ts, a process of its own that notes when each request came),
// every target probed every 30 s by each system in turn, with their default settings: a warm-up, then a measured
// window with each process's CPU (/proc/<pid>/stat) and, for Vigil's Node processes, their threads'; memory (RSS, and
// the pages of all the system's processes each counted once) at the window's end; the latency each system reported
// minus the target's delay; and, off the targets' clock, the interval between consecutive requests of a target and
// the requests missed.
//   peer:  blackbox_exporter (the Debian package's configuration, http_2xx) scraped by Prometheus
//          (bench/peer/peer-system.ts); installed with apt-get when missing (as root);
//   Vigil: a redis-server of its own, the control plane and one agent as processes (`node apps/*/dist/main.js`),
//          on PGlite and on a database of its own on the machine's PostgreSQL (bench/peer/vigil.ts).
// Settings: BENCH_TARGETS (500,2000), BENCH_BACKENDS (pglite,postgres), BENCH_WARMUP_SECONDS (60), BENCH_SECONDS
// (180, a multiple of the 30 s period), BENCH_NODE_ARGS (node flags for Vigil's processes, e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof"), BENCH_NO_DOC=1 (print only). Build first (pnpm build).
import { PERIODICITY_MS } from "@vigil/domain";
import { Blackbox } from "./fidelity/blackbox";
import { measure, type Figures, type SystemUnderTest } from "./peer/measure";
import { PEER, startPeer } from "./peer/peer-system";
import { installPeer, Prometheus } from "./peer/prometheus";
import { comparisonTable, threadTable, type Run } from "./peer/report";
import { DELAYS_MS, Targets } from "./peer/targets";
import { startVigil, type Backend } from "./peer/vigil";
import { assertBuilt } from "./support/built";
import { writeDocsBlock } from "./support/doc";
import { runOn, waitForQuietMachine } from "./support/machine";
import { runBenchmark } from "./support/run";
import { commandLine, listSetting, numberSetting, textSetting } from "./support/settings";

const BACKEND_NAMES: Record<Backend, string> = { pglite: "PGlite", postgres: "PostgreSQL" };
const TARGETS = listSetting("TARGETS", [500, 2_000]);
const BACKENDS = (textSetting("BACKENDS") ?? "pglite,postgres").split(",") as Backend[];
const WARMUP_SECONDS = numberSetting("WARMUP_SECONDS", 60);
const SECONDS = numberSetting("SECONDS", 180);
const NODE_ARGS = (textSetting("NODE_ARGS") ?? "").split(" ").filter(Boolean);
const PERIOD_MS = PERIODICITY_MS["30s"];

async function run(what: string, start: () => Promise<SystemUnderTest>, targets: Targets): Promise<Figures> {
  await waitForQuietMachine();
  const system = await start();
  try {
    return await measure(what, system, targets, { warmupMs: WARMUP_SECONDS * 1000, windowMs: SECONDS * 1000, periodMs: PERIOD_MS });
  } finally {
    await system.stop();
  }
}

runBenchmark(async () => {
  for (const backend of BACKENDS) if (!(backend in BACKEND_NAMES)) throw new Error(`BENCH_BACKENDS names ${backend}: use pglite, postgres or both`);
  if ((SECONDS * 1000) % PERIOD_MS !== 0) throw new Error(`BENCH_SECONDS must be a multiple of ${PERIOD_MS / 1000}, so that every target is due as often in the window`);
  assertBuilt("apps/control-plane", "apps/agent", "packages/client", "packages/checks", "packages/db", "packages/domain", "packages/queue");
  installPeer();
  const runs: Run[] = [];
  for (const count of TARGETS) {
    const targets = await Targets.start(count);
    try {
      const sized: Run[] = [{ targets: count, system: PEER, figures: await run(`${PEER}, ${count} targets`, () => startPeer(targets, PERIOD_MS / 1000), targets) }];
      for (const backend of BACKENDS) {
        const system = `Vigil on ${BACKEND_NAMES[backend]}`;
        sized.push({ targets: count, system, backend: BACKEND_NAMES[backend], figures: await run(`${system}, ${count} targets`, () => startVigil(backend, targets, NODE_ARGS), targets) });
      }
      runs.push(...sized);
    } finally {
      targets.stop();
    }
  }
  // The threads at the largest number of targets, where the checks' own cost shows most.
  const mostTargets = Math.max(...TARGETS);
  const block = [
    `${runOn(`Prometheus ${Prometheus.version()}, blackbox_exporter ${Blackbox.version()}`)} Command: \`${commandLine("bench:peer")}\` (targets on loopback answering after ${DELAYS_MS.join(" and ")} ms, half each, every one probed every ${PERIOD_MS / 1000} s; ${WARMUP_SECONDS} s of warm-up, then ${SECONDS} s measured; each system alone on the machine). CPU ms per check = the system's processes' CPU time in the window over the requests the targets received in it. Memory is RSS at the window's end, and the ratio compares RSS sums, as the goal is set; for PostgreSQL's processes, whose RSS counts the shared buffers once per process, their summed Pss is given too. A sum of RSS counts a page in each process that maps it (the Node binary in both of Vigil's Node processes, the shared buffers in each of PostgreSQL's), so the memory of all the system's processes together, each page in memory counted once (/proc/<pid>/pagemap), is given beside it with its ratio. Latency error = the latency the system reported − the target's delay; interval error = the time between two consecutive requests of a target − ${PERIOD_MS / 1000} s, both off the targets' clock.`,
    "",
    ...comparisonTable(runs),
    "",
    `CPU % of one core of Vigil's Node processes by thread at ${mostTargets.toLocaleString("en-US")} targets, over the same windows (worker threads: the control plane's embedded database on PGlite, the agent's check threads):`,
    "",
    ...threadTable(runs.filter((run) => run.backend !== undefined && run.targets === mostTargets)),
  ].join("\n");
  process.stdout.write(`${block}\n`);
  writeDocsBlock("peer", "Cost per check beside blackbox_exporter + Prometheus (issue 36)", "bench/peer.ts", block);
});
