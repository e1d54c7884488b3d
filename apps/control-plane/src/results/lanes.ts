import type { DatabaseTarget } from "@vigil/db";
import type { ResultMessage } from "@vigil/queue";

/**
 * Lanes unless INGEST_LANES says otherwise: two on PostgreSQL, where one lane's statements run
 * while this process prepares the other's (1.3-1.4x on 2 cores, bench:pipeline; more did not help there);
 * one on embedded PGlite, which runs one transaction at a time in this process anyway.
 */
export const defaultIngestLanes = (database: DatabaseTarget): number => (database.kind === "postgres" ? 2 : 1);

/**
 * The fewest results a lane is opened for. A lane is a transaction of its own, about eight statements
 * whatever its size: at a trickle (500 monitors at 30 s gather ~17 results a second) a second lane
 * doubled the statements and overlapped nothing, while batches of hundreds are where one lane's statements
 * run while the next is prepared.
 */
export const MIN_RESULTS_PER_LANE = 100;

/** How many lanes a batch of `size` results is stored in: at most `lanes`, each with MIN_RESULTS_PER_LANE or more. */
export const lanesFor = (size: number, lanes: number): number => Math.max(1, Math.min(lanes, Math.floor(size / MIN_RESULTS_PER_LANE)));

/**
 * Splits a batch into `count` lanes by monitor, each stored by its own transaction at the same time:
 * a monitor's results stay in one lane (its status moves in one transaction, under its row lock), and
 * lanes lock disjoint monitors, so they never wait for each other. On PostgreSQL one lane's statements
 * run while this process prepares another's. `laneKey` keeps monitors together: those of one dependency
 * tree (dependencyTrees) share a lane, where their failures are judged dependencies first in one
 * transaction rather than in lanes racing each other.
 */
export function splitIntoLanes(results: readonly ResultMessage[], count: number, laneKey: (monitorId: string) => string = (id) => id): ResultMessage[][] {
  if (count <= 1) return [[...results]];
  const lanes: ResultMessage[][] = Array.from({ length: count }, () => []);
  for (const result of results) lanes[laneOf(laneKey(result.monitorId), count)]!.push(result);
  return lanes.filter((lane) => lane.length > 0);
}

/** FNV-1a over the monitor id: stable across processes and spread evenly over random ids. */
function laneOf(monitorId: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < monitorId.length; i++) hash = Math.imul(hash ^ monitorId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
}
