// The tables of bench/peer.ts.
import { fmt } from "../support/stats";
import { markdownTable, right } from "../support/table";
import { HELPER_THREADS, MAIN_THREAD, WORKER_THREADS } from "../support/threads";
import type { Figures, Memory } from "./measure";

/** The goal for both ratios, Vigil over the peer. */
export const GOAL_RATIO = 1.5;

export interface Run {
  targets: number;
  system: string;
  /** Vigil's database, none for the peer. */
  backend?: string;
  figures: Figures;
}

const MIB = 2 ** 20;
const rssSum = (figures: Figures) => Object.values(figures.memory).reduce((sum, memory) => sum + memory.rssBytes, 0);

/** A process's memory: RSS, and for a server of several processes (PostgreSQL's) their summed Pss too. */
const memoryCell = (name: string, memory: Memory) =>
  memory.processes > 1 ? `${name} ${fmt(memory.rssBytes / MIB)} (Pss ${fmt(memory.pssBytes / MIB)}, ${memory.processes} processes)` : `${name} ${fmt(memory.rssBytes / MIB)}`;

const ratioCell = (ratio: number) => `${fmt(ratio, 2)}× ${ratio <= GOAL_RATIO ? "met" : "**not met**"}`;

/** The memory of all of a system's processes, each page counted once, with its ratio to `peer`'s (none for the peer). */
function distinctCell({ distinctBytes }: Figures, peer: Figures | null): string {
  if (distinctBytes === null) return "n/a (as root only)";
  const ratio = peer?.distinctBytes ? ` (${ratioCell(distinctBytes / peer.distinctBytes)})` : "";
  return `**${fmt(distinctBytes / MIB)}**${ratio}`;
}

/** For each number of targets, the peer's row, then Vigil's on each backend with its ratios to that peer. */
export function comparisonTable(runs: Run[]): string[] {
  const rows = runs.map(({ targets, system, backend, figures }) => {
    const peer = runs.find((run) => run.targets === targets && run.backend === undefined)!.figures;
    const vsPeer = (vigil: number, of: number) => (backend === undefined ? "(peer)" : ratioCell(vigil / of));
    const names = Object.keys(figures.memory);
    return [
      fmt(targets),
      system,
      `${fmt(figures.checks)} (${fmt(figures.reportedChecks)} reported)`,
      names.map((name) => `${name} ${fmt(figures.cpu[name]!, 1)}`).join(" · "),
      `**${fmt(figures.cpuMsPerCheck, 2)}**`,
      vsPeer(figures.cpuMsPerCheck, peer.cpuMsPerCheck),
      names.map((name) => memoryCell(name, figures.memory[name]!)).join(" · "),
      `**${fmt(rssSum(figures) / MIB)}**`,
      vsPeer(rssSum(figures), rssSum(peer)),
      distinctCell(figures, backend === undefined ? null : peer),
      `${fmt(figures.latencyError.p50, 2)} / ${fmt(figures.latencyError.p99, 2)}`,
      `${fmt(figures.interval.p50, 1)} / ${fmt(figures.interval.p99, 1)} / ${fmt(figures.interval.max, 1)}`,
      fmt(figures.missed),
      [figures.cpu.targets!, figures.cpu.self, figures.cpu.rest].map((share) => fmt(share)).join(" / "),
    ];
  });
  return markdownTable(
    [
      right("Targets"),
      "System",
      right("Checks at the targets in the window (reported by the system)"),
      "CPU % of one core, by process",
      right("CPU ms per check"),
      `CPU per check vs peer (goal ≤ ${GOAL_RATIO}×)`,
      "Memory at the end, MiB RSS by process",
      right("Memory, MiB RSS in all"),
      `Memory (RSS) vs peer (goal ≤ ${GOAL_RATIO}×)`,
      right("Memory in all, MiB of distinct pages (vs peer)"),
      right("Latency error p50 / p99 (ms)"),
      right("Interval error p50 / p99 / max (ms)"),
      right("Missed"),
      right("CPU % outside: targets / benchmark / other work"),
    ],
    rows,
  );
}

const GROUP_ORDER = [MAIN_THREAD, WORKER_THREADS, HELPER_THREADS];

/** CPU % of one core of each Node process of Vigil, by thread group. */
export function threadTable(runs: Run[]): string[] {
  const threaded = runs.flatMap(({ targets, backend, figures }) => Object.entries(figures.threads).map(([name, groups]) => ({ targets, backend: backend!, name, groups })));
  const named = new Set(threaded.flatMap(({ groups }) => [...groups.keys()]).filter((group) => !GROUP_ORDER.includes(group)));
  const columns = [...GROUP_ORDER, ...named];
  const rows = threaded.map(({ targets, backend, name, groups }) => [
    fmt(targets),
    backend,
    name,
    ...columns.map((group) => fmt(groups.get(group) ?? 0, 1)),
    fmt([...groups.values()].reduce((a, b) => a + b, 0), 1),
  ]);
  return markdownTable([right("Targets"), "Backend", "Process", ...columns.map(right), right("Process in all")], rows);
}
