import {
  PROVIDER_TYPES,
  SENSITIVE_FIELDS,
  blockName,
  pageAccessViolations,
  redactCredentials,
  redactedCredentialFields,
  restoreCredentials,
  secretFingerprint,
  type ProviderType,
} from "@vigil/domain";
import { CliError } from "../failures.js";
import { diffFields, diffSecret, type FieldChange } from "./diff.js";
import {
  BLOCK_NAMES,
  windowFields,
  type ComponentEntry,
  type GroupEntry,
  type MaintenanceEntry,
  type MonitorEntry,
  type NotificationEntry,
  type StatusPageEntry,
  type VigilFile,
} from "./file-schema.js";
import { entryFields, parseEntryConfig, type EntryConfig, type EntryKind } from "./kinds.js";
import { keyOf, matchEntries, type Match } from "./match.js";
import { componentReference } from "./references.js";
import type { RemoteComponent, RemoteGroup, RemoteMonitor, RemoteNotification, RemotePage, RemoteWindow, Workspace } from "./remote.js";

export type Action = "none" | "create" | "update" | "replace" | "delete";

/**
 * What to do with one object. Every entry has a step, "none" included, so
 * that applying knows the ids behind the keys the other entries name.
 */
export interface Step<D, R> {
  action: Action;
  /** Where it is in the file: `monitors.api`, `statusPages.public.components.api`. */
  address: string;
  key: string;
  desired: D | undefined;
  remote: R | undefined;
  /** The key recorded on the object; none for an adopted one, whose key the file keeps. */
  externalId: string | undefined;
  fields: FieldChange[];
  /** Why an object is replaced rather than changed. */
  reason?: string;
}

export interface MonitorDesired {
  kind: EntryKind;
  config: EntryConfig;
}

export interface NotificationDesired {
  name: string;
  type: ProviderType;
  /** The block as the file gives it: a sensitive field left out keeps the stored value. */
  block: Record<string, unknown>;
  monitors: string[];
  reminderMinutes: number;
}

export type PageDesired = Omit<StatusPageEntry, "id" | "groups" | "components">;
export type GroupDesired = Omit<GroupEntry, "id">;
export type ComponentDesired = Omit<ComponentEntry, "id">;

export interface PageStep extends Step<PageDesired, RemotePage> {
  groups: Step<GroupDesired, RemoteGroup>[];
  components: Step<ComponentDesired, RemoteComponent>[];
}

/** A window as the file gives it: times as RFC 3339 in UTC, monitors by key (else id), components by `<page>/<component>` (else id). */
export interface WindowDesired {
  title: string;
  message: string;
  startsAt: string;
  endsAt: string;
  recurrence: string;
  timezone: string;
  monitors: string[];
  components: string[];
}

export interface Plan {
  project: string;
  monitors: Step<MonitorDesired, RemoteMonitor>[];
  notifications: Step<NotificationDesired, RemoteNotification>[];
  statusPages: PageStep[];
  maintenanceWindows: Step<WindowDesired, RemoteWindow>[];
}

const MONITOR_SETS = ["regions", "dependsOn"];
const PAGE_FIELDS = ["title", "slug", "description", "homepageUrl", "contactUrl", "icon", "customDomain", "accessType", "authEmailDomains", "language", "subscriptionsEnabled", "published"] as const;
const COMPONENT_FIELDS = ["monitor", "name", "description", "order", "group", "groupOrder"] as const;
const WINDOW_FIELDS = ["title", "message", "startsAt", "endsAt", "recurrence", "timezone", "monitors", "components"] as const;
const WINDOW_SETS = ["monitors", "components"];

/** A step for a matched entry: create, or update when a field differs. */
function stepOf<E, D, R>(address: string, match: Match<E, R>, desired: D, fields: (remote: R) => FieldChange[]): Step<D, R> {
  const base = { address: `${address}.${match.key}`, key: match.key, desired, remote: match.remote, externalId: match.externalId };
  if (match.remote === undefined) return { ...base, action: "create", fields: [] };
  const changes = fields(match.remote);
  return { ...base, action: changes.length > 0 ? "update" : "none", fields: changes };
}

function deletion<R extends { externalId: string }>(project: string, address: string, remote: R): Step<never, R> {
  const key = keyOf(project, remote.externalId)!;
  return { action: "delete", address: `${address}.${key}`, key, desired: undefined, remote, externalId: undefined, fields: [] };
}

/** Ids of server objects by the file key that stands for them; unmatched ids stand for themselves. */
class KeyNames {
  private readonly names = new Map<string, string>();
  private readonly replaced = new Set<string>();
  constructor(steps: readonly Step<unknown, { id: string }>[]) {
    for (const step of steps) {
      if (!step.remote) continue;
      this.names.set(step.remote.id, step.key);
      if (step.action === "replace") this.replaced.add(step.remote.id);
    }
  }
  /** A replaced object goes, and whatever points at it loses it: that shows as a change. */
  of(id: string): string {
    if (id === "") return "";
    const name = this.names.get(id) ?? id;
    return this.replaced.has(id) ? `${name} (replaced)` : name;
  }
  isReplaced(id: string): boolean {
    return this.replaced.has(id);
  }
}

/**
 * Fingerprints a file holds in place of credentials (as a read key's export
 * writes them) that stand for no value stored in the same place: the API
 * would refuse them. A read key's answers hold fingerprints themselves, and
 * are compared by them only.
 */
function unmatchedFingerprints(address: string, desired: object, current: { id: string; value: object } | undefined): string[] {
  if (current && redactedCredentialFields(current.value, "").length > 0) return [];
  const kept = current ? restoreCredentials(desired, current.value, current.id) : desired;
  return redactedCredentialFields(kept, address).map((v) => `${v.field}: is a fingerprint of a credential, which stands for no value stored here: give the value itself`);
}

function monitorSteps(project: string, file: VigilFile, remote: Workspace, missing: (address: string, id: string) => void, problems: string[]) {
  const { matches, orphans } = matchEntries<MonitorEntry, RemoteMonitor>(project, file.monitors, remote.monitors, (key, id) => missing(`monitors.${key}`, id));
  // dependsOn compares by the file's keys; a monitor whose type changes is replaced, and its dependents lose it.
  const replaced = new Set(matches.filter((m) => m.remote && m.remote.kind !== m.entry.type).map((m) => m.remote!.id));
  const keyOfId = new Map(matches.flatMap((m) => (m.remote ? [[m.remote.id, replaced.has(m.remote.id) ? `${m.key} (replaced)` : m.key] as const] : [])));
  const steps = matches.map((match) => {
    const { type: kind, id: _id, ...fields } = match.entry;
    const desired: MonitorDesired = { kind, config: parseEntryConfig(kind, fields) };
    const current = match.remote?.kind === kind ? { id: match.remote.id, value: match.remote.config } : undefined;
    problems.push(...unmatchedFingerprints(`monitors.${match.key}`, desired.config, current));
    // Credentials compare by their fingerprints (what a read key is answered), and a plan shows no more of them.
    const step = stepOf("monitors", match, desired, (remote) => {
      const now = { ...remote.config, dependsOn: remote.config.dependsOn.map((id) => keyOfId.get(id) ?? id) };
      return diffFields(redactCredentials(now, remote.id), redactCredentials(desired.config, remote.id), entryFields(kind), MONITOR_SETS);
    });
    if (match.remote && match.remote.kind !== kind) {
      return { ...step, action: "replace" as const, fields: [], reason: `type changes from ${match.remote.kind} to ${kind}` };
    }
    return step;
  });
  return [...steps, ...orphans.map((orphan) => deletion(project, "monitors", orphan))];
}

function notificationSteps(project: string, file: VigilFile, remote: Workspace, monitorNames: KeyNames, missing: (address: string, id: string) => void, problems: string[]) {
  const { matches, orphans } = matchEntries<NotificationEntry, RemoteNotification>(project, file.notifications, remote.notifications, (key, id) =>
    missing(`notifications.${key}`, id),
  );
  const steps = matches.map((match) => {
    const entry = match.entry as Record<string, unknown>;
    const blockKey = BLOCK_NAMES.find((name) => entry[name] !== undefined)!;
    const type = PROVIDER_TYPES.find((t) => blockName(t) === blockKey)!;
    const block = entry[blockKey] as Record<string, unknown>;
    const desired: NotificationDesired = { name: match.entry.name ?? "", type, block, monitors: match.entry.monitors ?? [], reminderMinutes: match.entry.reminderMinutes ?? 0 };
    const secrets = SENSITIVE_FIELDS[type] as readonly string[];
    const leftOut = secrets.filter((field) => block[field] === undefined);
    if (leftOut.length > 0 && (!match.remote || match.remote.type !== type)) {
      problems.push(`notifications.${match.key}.${blockKey}.${leftOut[0]}: is required ${match.remote ? `as the channel changes to ${blockKey}` : "for a new channel"}`);
    }
    const current = match.remote?.type === type ? { id: match.remote.id, value: { [blockKey]: match.remote.block } } : undefined;
    problems.push(...unmatchedFingerprints(`notifications.${match.key}`, { [blockKey]: block }, current));
    return stepOf("notifications", match, desired, (current) => {
      const now = { name: current.name, type: blockName(current.type), monitors: current.monitorIds.map((id) => monitorNames.of(id)), reminderMinutes: current.reminderMinutes };
      const wanted = { name: desired.name, type: blockKey, monitors: desired.monitors, reminderMinutes: desired.reminderMinutes };
      const changes = diffFields(now, wanted, ["name", "type", "monitors", "reminderMinutes"], ["monitors"]);
      const plain = Object.keys(block).filter((field) => !secrets.includes(field));
      const shown = (fields: Record<string, unknown>) => redactCredentials({ [blockKey]: fields }, current.id)[blockKey]!;
      changes.push(...diffFields(shown(current.type === type ? current.block : {}), shown(block), plain).map((c) => ({ ...c, field: `${blockKey}.${c.field}` })));
      for (const field of secrets) {
        const stored = current.type === type ? (current.secretFingerprints[field] ?? "") : "";
        changes.push(...diffSecret(`${blockKey}.${field}`, block[field] as string | undefined, stored, (value) => secretFingerprint(current.id, value)));
      }
      return changes;
    });
  });
  return [...steps, ...orphans.map((orphan) => deletion(project, "notifications", orphan))];
}

function pageSteps(project: string, file: VigilFile, remote: Workspace, monitorNames: KeyNames, missing: (address: string, id: string) => void, problems: string[]): PageStep[] {
  const { matches, orphans } = matchEntries<StatusPageEntry, RemotePage>(project, file.statusPages, remote.statusPages, (key, id) => missing(`statusPages.${key}`, id));
  const steps = matches.map((match): PageStep => {
    const { id: _id, groups, components, ...desired } = match.entry;
    const address = `statusPages.${match.key}`;
    const hasPassword = desired.password !== undefined || (match.remote?.accessType === "password" && match.remote.passwordFingerprint !== "");
    problems.push(...pageAccessViolations({ ...desired, hasPassword }).map((v) => `${address}.${v.field}: ${v.rule}`));
    const step = stepOf("statusPages", match, desired, (current) => [
      ...diffFields(current, desired, PAGE_FIELDS, ["authEmailDomains"]),
      ...(desired.accessType === "password" ? diffSecret("password", desired.password, current.passwordFingerprint, (value) => secretFingerprint(current.id, value)) : []),
    ]);
    return { ...step, ...childSteps(project, address, match.remote, groups, components, monitorNames, missing) };
  });
  const gone = orphans.map((orphan): PageStep => ({ ...deletion(project, "statusPages", orphan), groups: [], components: [] }));
  return [...steps, ...gone];
}

/** A page's groups and components; a page that is new has none on the server yet. */
function childSteps(
  project: string,
  address: string,
  page: RemotePage | undefined,
  groups: Record<string, GroupEntry>,
  components: Record<string, ComponentEntry>,
  monitorNames: KeyNames,
  missing: (address: string, id: string) => void,
) {
  const groupMatch = matchEntries<GroupEntry, RemoteGroup>(project, groups, page?.groups ?? [], (key, id) => missing(`${address}.groups.${key}`, id));
  const groupSteps = [
    ...groupMatch.matches.map((match) => {
      const { id: _id, ...desired } = match.entry;
      return stepOf(`${address}.groups`, match, desired, (current) => diffFields(current, desired, ["name"]));
    }),
    ...groupMatch.orphans.map((orphan) => deletion(project, `${address}.groups`, orphan)),
  ];
  const groupNames = new KeyNames(groupSteps);
  const componentMatch = matchEntries<ComponentEntry, RemoteComponent>(project, components, page?.components ?? [], (key, id) =>
    missing(`${address}.components.${key}`, id),
  );
  const componentSteps = [
    ...componentMatch.matches.map((match) => {
      const { id: _id, ...desired } = match.entry;
      const step = stepOf(`${address}.components`, match, desired, (current) => {
        const now = { ...current, monitor: monitorNames.of(current.monitorId), group: groupNames.of(current.groupId) };
        return diffFields(now, { ...desired, monitor: desired.monitor ?? "", group: desired.group ?? "" }, COMPONENT_FIELDS);
      });
      const reason =
        match.remote && match.remote.type !== desired.type
          ? `type changes from ${match.remote.type} to ${desired.type}`
          : match.remote && monitorNames.isReplaced(match.remote.monitorId)
            ? "its monitor is replaced, which removes it"
            : undefined;
      return reason ? { ...step, action: "replace" as const, fields: [], reason } : step;
    }),
    ...componentMatch.orphans.map((orphan) => deletion(project, `${address}.components`, orphan)),
  ];
  return { groups: groupSteps, components: componentSteps };
}

/** An instant as the file compares and export writes it: RFC 3339 in UTC, whole seconds without a fraction. */
export const rfc3339 = (at: Date) => at.toISOString().replace(".000Z", "Z");

/**
 * How a window's reference to an object compares: by the file's name for
 * it, whichever way the file gives it. An id of an object the file manages
 * becomes its name; an id of one it replaces or deletes cannot be kept.
 */
function referenceName(
  reference: string,
  isFileName: (reference: string) => boolean,
  steps: readonly Step<unknown, { id: string }>[],
  exists: (id: string) => boolean,
  what: string,
): { name: string } | { rule: string } {
  if (isFileName(reference)) return { name: reference };
  const step = steps.find((s) => s.remote?.id === reference);
  if (step?.action === "replace") return { rule: `names ${reference}, which this plan replaces: name it by its key` };
  if (step?.action === "delete") return { rule: `names ${reference}, which this plan deletes` };
  if (step) return { name: step.key };
  return exists(reference) ? { name: reference } : { rule: `names ${reference}, which is neither a ${what} of this file nor the id of one in this workspace` };
}

function windowSteps(
  project: string,
  file: VigilFile,
  remote: Workspace,
  monitors: Step<MonitorDesired, RemoteMonitor>[],
  pages: PageStep[],
  missing: (address: string, id: string) => void,
  problems: string[],
) {
  const { matches, orphans } = matchEntries<MaintenanceEntry, RemoteWindow>(project, file.maintenanceWindows, remote.maintenanceWindows, (key, id) =>
    missing(`maintenanceWindows.${key}`, id),
  );
  // Components are named `<page key>/<component key>`, across the file's pages.
  const components = pages.flatMap((page) => page.components.map((step) => ({ ...step, key: `${page.key}/${step.key}` })));
  const monitorNames = new KeyNames(monitors);
  const componentNames = new KeyNames(components);
  const remoteMonitors = new Set(remote.monitors.map((m) => m.id));
  const remoteComponents = new Set(remote.statusPages.flatMap((page) => page.components.map((c) => c.id)));
  const steps = matches.map((match) => {
    const address = `maintenanceWindows.${match.key}`;
    const fields = windowFields(match.entry);
    const names = (field: "monitors" | "components", references: string[], resolve: (reference: string) => { name: string } | { rule: string }) =>
      references.flatMap((reference, index) => {
        const resolved = resolve(reference);
        if ("rule" in resolved) problems.push(`${address}.${field}[${index}]: ${resolved.rule}`);
        return "name" in resolved ? [resolved.name] : [];
      });
    const desired: WindowDesired = {
      title: fields.title,
      message: fields.message,
      startsAt: rfc3339(fields.startsAt),
      endsAt: rfc3339(fields.endsAt),
      recurrence: fields.recurrence,
      timezone: fields.timezone,
      monitors: names("monitors", fields.monitorIds, (r) => referenceName(r, (key) => Object.hasOwn(file.monitors, key), monitors, (id) => remoteMonitors.has(id), "monitor")),
      components: names("components", fields.pageComponentIds, (r) =>
        referenceName(r, (name) => componentReference(name) !== undefined, components, (id) => remoteComponents.has(id), "page component"),
      ),
    };
    return stepOf("maintenanceWindows", match, desired, (current) => {
      const now = {
        ...current,
        startsAt: rfc3339(current.startsAt),
        endsAt: rfc3339(current.endsAt),
        monitors: current.monitorIds.map((id) => monitorNames.of(id)),
        components: current.pageComponentIds.map((id) => componentNames.of(id)),
      };
      return diffFields(now, desired, WINDOW_FIELDS, WINDOW_SETS);
    });
  });
  return [...steps, ...orphans.map((orphan) => deletion(project, "maintenanceWindows", orphan))];
}

/** What applying `file` to `remote` would do, object by object. */
export function planChanges(file: VigilFile, remote: Workspace): Plan {
  const project = file.project;
  const missing: string[] = [];
  const onMissing = (address: string, id: string) => missing.push(`${address}.id: no such object ${id} in this workspace`);
  // What the API would refuse, all told at once before anything is sent.
  const problems: string[] = [];
  const monitors = monitorSteps(project, file, remote, onMissing, problems);
  const monitorNames = new KeyNames(monitors);
  const statusPages = pageSteps(project, file, remote, monitorNames, onMissing, problems);
  const plan = {
    project,
    monitors,
    notifications: notificationSteps(project, file, remote, monitorNames, onMissing, problems),
    statusPages,
    maintenanceWindows: windowSteps(project, file, remote, monitors, statusPages, onMissing, problems),
  };
  if (problems.length > 0) throw new CliError(`the file cannot be applied:\n  ${problems.join("\n  ")}`);
  if (missing.length > 0) throw new CliError(`the file names objects the workspace does not have:\n  ${missing.join("\n  ")}`);
  return plan;
}

/** Every step of a plan, pages' groups and components after their page. */
export function allSteps(plan: Plan): Step<unknown, unknown>[] {
  return [...plan.monitors, ...plan.notifications, ...plan.statusPages.flatMap((page) => [page, ...page.groups, ...page.components]), ...plan.maintenanceWindows];
}

export interface Counts {
  create: number;
  update: number;
  replace: number;
  delete: number;
}

export function countChanges(plan: Plan): Counts {
  const counts: Counts = { create: 0, update: 0, replace: 0, delete: 0 };
  for (const step of allSteps(plan)) if (step.action !== "none") counts[step.action]++;
  return counts;
}

export const hasChanges = (counts: Counts) => counts.create + counts.update + counts.replace + counts.delete > 0;
