import { LIMITS } from "./limits";
import { readableLine, set } from "./rules";
import type { FieldViolation } from "./validation";

/**
 * Monitor dependencies (docs/alerting.md "Dependencies"): a monitor names the monitors it depends on
 * (`dependsOn`); while one of them has an open incident, its failures open no incident of their own and
 * send nothing, and are listed as also affected on that incident. Every kind has the field, with the
 * same rules, from here.
 */

/** The dependsOn field of every kind's schema: distinct ids, at most LIMITS.dependsOnPerMonitor. */
export const dependsOnField = () =>
  set(readableLine(LIMITS.idMaxChars))
    .max(LIMITS.dependsOnPerMonitor, `must have at most ${LIMITS.dependsOnPerMonitor} entries`)
    .default([]);

/** What the rules below need of another monitor of the workspace. */
export interface DependencyNode {
  name: string;
  dependsOn: readonly string[];
}

/**
 * The shortest cycle `dependsOn` would close through `monitorId`, as ids from `monitorId` back to it, or null.
 * The stored edges have no cycle (every write is checked), so any new one passes through this monitor.
 */
export function dependencyCycle(monitorId: string, dependsOn: readonly string[], graph: ReadonlyMap<string, DependencyNode>): string[] | null {
  const parent = new Map<string, string>(dependsOn.map((id) => [id, monitorId]));
  const queue = [...dependsOn];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    if (id === monitorId) {
      const path = [monitorId];
      for (let at = parent.get(id)!; at !== monitorId; at = parent.get(at)!) path.unshift(at);
      return [monitorId, ...path];
    }
    for (const next of graph.get(id)?.dependsOn ?? []) {
      if (parent.has(next)) continue;
      parent.set(next, id);
      queue.push(next);
    }
  }
  return null;
}

/**
 * What is wrong with `dependsOn` of the monitor `monitorId` (undefined while it is created) in a workspace
 * whose monitors are `graph`: ids that name no monitor of the workspace, the monitor itself, or a cycle
 * (named monitor by monitor). Fields are under `field`.
 */
export function dependencyViolations(
  monitorId: string | undefined,
  dependsOn: readonly string[],
  graph: ReadonlyMap<string, DependencyNode>,
  field = "monitor.dependsOn",
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  dependsOn.forEach((id, index) => {
    if (id === monitorId) violations.push({ field: `${field}[${index}]`, rule: "must not name the monitor itself" });
    else if (!graph.has(id)) violations.push({ field: `${field}[${index}]`, rule: `names no monitor of this workspace: ${id}` });
  });
  if (violations.length > 0 || monitorId === undefined) return violations;
  const cycle = dependencyCycle(monitorId, dependsOn, graph);
  if (cycle) {
    const named = cycle.map((id) => `${graph.get(id)?.name ?? id} (${id})`);
    violations.push({ field, rule: `makes a cycle: ${named.join(" → ")}` });
  }
  return violations;
}

/** What suppression needs to know of a monitor, now. */
export interface DependencyState {
  dependsOn: readonly string[];
  /** Its own open incident, if any. */
  openIncident: string | undefined;
}

/**
 * The open incident that absorbs a failure of `monitorId`, or null when it alerts as usual: that of the nearest
 * monitor it depends on, directly or through others, that has one (breadth first, in dependsOn order). A
 * monitor in between counts whatever its own status: in a tree failing from its root, the checks of its levels
 * report in any order, and each failure is the root's to tell.
 */
export function absorbingIncident(monitorId: string, state: (id: string) => DependencyState | undefined): { dependency: string; incident: string } | null {
  const seen = new Set([monitorId]);
  const queue = [...(state(monitorId)?.dependsOn ?? [])];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    if (seen.has(id)) continue;
    seen.add(id);
    const dependency = state(id);
    if (!dependency) continue;
    if (dependency.openIncident !== undefined) return { dependency: id, incident: dependency.openIncident };
    queue.push(...dependency.dependsOn);
  }
  return null;
}

/**
 * `ids` ordered so that each comes after those of them it depends on (directly or not): its dependencies'
 * incidents are then known when its own failure is judged. Order is otherwise kept.
 */
export function dependenciesFirst(ids: readonly string[], dependsOn: (id: string) => readonly string[]): string[] {
  const wanted = new Set(ids);
  const out: string[] = [];
  const done = new Set<string>();
  const visit = (id: string, path: Set<string>) => {
    if (done.has(id) || path.has(id)) return;
    path.add(id);
    for (const next of dependsOn(id)) visit(next, path);
    path.delete(id);
    done.add(id);
    if (wanted.has(id)) out.push(id);
  };
  for (const id of ids) visit(id, new Set());
  return out;
}
