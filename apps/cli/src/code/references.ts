import { componentMonitorViolations, componentReferenceViolations, dependencyCycle, type FieldViolation } from "@vigil/domain";
import type { FileProblem, VigilFile } from "./file-schema.js";

/** Entries that adopt the same server object twice. */
function repeatedIds(section: string, entries: Record<string, { id?: string | undefined }>, within: (string | number)[] = []): FileProblem[] {
  const seen = new Map<string, string>();
  const problems: FileProblem[] = [];
  for (const [key, entry] of Object.entries(entries)) {
    if (!entry.id) continue;
    const first = seen.get(entry.id);
    if (first) problems.push({ path: [...within, section, key, "id"], rule: `is also the id of ${first}; an object has one entry` });
    else seen.set(entry.id, key);
  }
  return problems;
}

/** A component's fields as the file names them: its monitor and group by key. */
const FILE_FIELDS: Record<string, string> = { monitorId: "monitor", groupId: "group" };

/**
 * What the file's own entries say about each other: channels and components
 * name monitors of the file, components name groups of their page, and the
 * rule between a component's type and its monitor (the API's own, from
 * @vigil/domain). A page's access is checked by the plan, which knows
 * whether the server keeps its password.
 */
export function referenceProblems(file: VigilFile): FileProblem[] {
  const problems: FileProblem[] = [
    ...repeatedIds("monitors", file.monitors),
    ...repeatedIds("notifications", file.notifications),
    ...repeatedIds("statusPages", file.statusPages),
    ...repeatedIds("maintenanceWindows", file.maintenanceWindows),
  ];
  const isMonitor = (key: string) => Object.hasOwn(file.monitors, key);

  // Monitors name the monitors they depend on by key; a cycle among them the API would refuse at apply.
  const graph = new Map(Object.entries(file.monitors).map(([key, monitor]) => [key, { name: key, dependsOn: monitor.dependsOn ?? [] }]));
  for (const [key, monitor] of Object.entries(file.monitors)) {
    const dependsOn = monitor.dependsOn ?? [];
    dependsOn.forEach((other, index) => {
      const at = ["monitors", key, "dependsOn", index];
      if (other === key) problems.push({ path: at, rule: "must not name the monitor itself" });
      else if (!isMonitor(other)) problems.push({ path: at, rule: `names ${other}, which is not a monitor of this file` });
    });
    const cycle = dependsOn.every((other) => other !== key && isMonitor(other)) ? dependencyCycle(key, dependsOn, graph) : null;
    // Each cycle once: from its first key in the file.
    if (cycle && cycle.every((member) => Object.keys(file.monitors).indexOf(member) >= Object.keys(file.monitors).indexOf(key))) {
      problems.push({ path: ["monitors", key, "dependsOn"], rule: `makes a cycle: ${cycle.join(" → ")}` });
    }
  }

  for (const [key, channel] of Object.entries(file.notifications)) {
    (channel.monitors ?? []).forEach((monitor, index) => {
      if (!isMonitor(monitor)) problems.push({ path: ["notifications", key, "monitors", index], rule: `names ${monitor}, which is not a monitor of this file` });
    });
  }

  for (const [pageKey, page] of Object.entries(file.statusPages)) {
    const at = (...path: (string | number)[]) => ["statusPages", pageKey, ...path];
    problems.push(...repeatedIds("groups", page.groups, at()), ...repeatedIds("components", page.components, at()));
    const isGroup = (key: string) => Object.hasOwn(page.groups, key);
    for (const [key, component] of Object.entries(page.components)) {
      const asComponent = { type: component.type, monitorId: component.monitor ?? "", groupId: component.group };
      const violations: FieldViolation[] = [
        ...componentMonitorViolations(asComponent),
        ...componentReferenceViolations(asComponent, { monitor: isMonitor, group: isGroup }, { monitors: "in this file", groups: "on this page" }),
      ];
      for (const { field, rule } of violations) problems.push({ path: at("components", key, FILE_FIELDS[field] ?? field), rule });
    }
  }
  problems.push(...windowProblems(file));
  return problems;
}

/** `<page key>/<component key>`: how a window names a component of the file; without a slash, a reference is an id. */
export function componentReference(reference: string): { page: string; component: string } | undefined {
  const slash = reference.indexOf("/");
  return slash < 0 ? undefined : { page: reference.slice(0, slash), component: reference.slice(slash + 1) };
}

/**
 * A window's components written `<page>/<component>` must be the file's;
 * its monitors that are no key of the file are taken for ids, which only
 * the plan can check against the workspace.
 */
function windowProblems(file: VigilFile): FileProblem[] {
  return Object.entries(file.maintenanceWindows).flatMap(([key, window]) =>
    (window.components ?? []).flatMap((reference, index) => {
      const named = componentReference(reference);
      if (named === undefined) return [];
      const page = Object.hasOwn(file.statusPages, named.page) ? file.statusPages[named.page] : undefined;
      const rule = !page
        ? `names page ${named.page}, which is not a status page of this file`
        : !Object.hasOwn(page.components, named.component)
          ? `names ${named.component}, which is not a component of page ${named.page}`
          : undefined;
      return rule ? [{ path: ["maintenanceWindows", key, "components", index], rule }] : [];
    }),
  );
}
