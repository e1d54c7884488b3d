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

/**
 * What the file's own entries say about each other: channels and components
 * name monitors of the file, components name groups of their page, and the
 * rules between a component's type and its monitor, and a page's access and
 * its domains.
 */
export function referenceProblems(file: VigilFile): FileProblem[] {
  const problems: FileProblem[] = [
    ...repeatedIds("monitors", file.monitors),
    ...repeatedIds("notifications", file.notifications),
    ...repeatedIds("statusPages", file.statusPages),
  ];
  const isMonitor = (key: string) => Object.hasOwn(file.monitors, key);

  for (const [key, channel] of Object.entries(file.notifications)) {
    (channel.monitors ?? []).forEach((monitor, index) => {
      if (!isMonitor(monitor)) problems.push({ path: ["notifications", key, "monitors", index], rule: `names ${monitor}, which is not a monitor of this file` });
    });
  }

  for (const [pageKey, page] of Object.entries(file.statusPages)) {
    const at = (...path: (string | number)[]) => ["statusPages", pageKey, ...path];
    if (page.accessType === "email-domain" && page.authEmailDomains.length === 0) {
      problems.push({ path: at("authEmailDomains"), rule: "is required when accessType is email-domain" });
    }
    problems.push(...repeatedIds("groups", page.groups, at()), ...repeatedIds("components", page.components, at()));
    for (const [key, component] of Object.entries(page.components)) {
      if (component.type === "monitor" && component.monitor === undefined) problems.push({ path: at("components", key), rule: "monitor is required when type is monitor" });
      if (component.type === "static" && component.monitor !== undefined) problems.push({ path: at("components", key, "monitor"), rule: "must be left out when type is static" });
      if (component.monitor !== undefined && !isMonitor(component.monitor)) {
        problems.push({ path: at("components", key, "monitor"), rule: `names ${component.monitor}, which is not a monitor of this file` });
      }
      if (component.group !== undefined && !Object.hasOwn(page.groups, component.group)) {
        problems.push({ path: at("components", key, "group"), rule: `names ${component.group}, which is not a group of this page` });
      }
    }
  }
  return problems;
}
