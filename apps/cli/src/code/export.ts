import { isDeepStrictEqual } from "node:util";
import { DEFAULTS, DEFAULT_ACCESS_TYPE, DEFAULT_PAGE_LANGUAGE, DEFAULT_SUBSCRIPTIONS_ENABLED, SENSITIVE_FIELDS, blockName, redactedCredentialFields } from "@vigil/domain";
import { Document, type YAMLMap } from "yaml";
import { FILE_VERSION } from "./file-schema.js";
import { entryFields, parseEntryConfig } from "./kinds.js";
import { keyOf } from "./match.js";
import { rfc3339 } from "./plan.js";
import type { RemoteMonitor, RemotePage, RemoteWindow, Workspace } from "./remote.js";

type Json = Record<string, unknown>;

/** A key for an object no file has named yet, from its display name. */
function suggestKey(name: string, fallback: string, taken: Set<string>): string {
  const base =
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || fallback;
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
  taken.add(key);
  return key;
}

/**
 * Keys for a list of objects: the project's own key where one is recorded,
 * else one made from the name, with the object's `id` so the file adopts it.
 */
function keyed<R extends { id: string; externalId: string }>(project: string, remotes: readonly R[], nameOf: (r: R) => string, fallback: string) {
  const taken = new Set(remotes.map((r) => keyOf(project, r.externalId)).filter((key): key is string => key !== undefined));
  return remotes.map((remote) => {
    const own = keyOf(project, remote.externalId);
    return own !== undefined ? { key: own, remote, id: {} } : { key: suggestKey(nameOf(remote), fallback, taken), remote, id: { id: remote.id } };
  });
}

const isEmpty = (value: unknown) => value === "" || (Array.isArray(value) && value.length === 0);
const withoutEmpty = (object: Json) => Object.fromEntries(Object.entries(object).filter(([, value]) => !isEmpty(value)));

/** A monitor's fields that differ from what the file would get by leaving them out. */
function monitorEntry(monitor: RemoteMonitor, monitorKeys: Map<string, string>): Json {
  // The file names the monitors it depends on by key.
  const config = { ...monitor.config, dependsOn: monitor.config.dependsOn.map((id) => monitorKeys.get(id) ?? id) } as unknown as Json;
  if (monitor.kind === "heartbeat") {
    // The schedule is written whichever form it takes; a cron expression's period is null, which the file leaves out.
    const defaults = parseEntryConfig("heartbeat", { name: config.name }) as unknown as Json;
    const fields = entryFields("heartbeat").filter((field) => field !== "periodSeconds" && !isDeepStrictEqual(config[field], defaults[field]));
    const period = config.periodSeconds === null ? {} : { periodSeconds: config.periodSeconds };
    return { type: monitor.kind, name: config.name, ...period, ...Object.fromEntries(fields.map((field) => [field, config[field]])) };
  }
  const target = monitor.kind === "http" ? { url: config.url } : { uri: config.uri };
  const defaults = parseEntryConfig(monitor.kind, { name: config.name, periodicity: config.periodicity, timeout: config.timeout, ...target }) as unknown as Json;
  const fields = entryFields(monitor.kind).filter((field) => !isDeepStrictEqual(config[field], defaults[field]));
  return { type: monitor.kind, name: config.name, ...target, periodicity: config.periodicity, ...Object.fromEntries(fields.map((field) => [field, config[field]])) };
}

/** A page's components with their keys: its entry and the windows that name them use the same. */
const componentsOf = (project: string, page: RemotePage, monitorKeys: Map<string, string>) =>
  keyed(project, page.components, (c) => c.name || (monitorKeys.get(c.monitorId) ?? ""), "component");

function pageEntry(page: RemotePage, monitorKeys: Map<string, string>, project: string): Json {
  const groups = keyed(project, page.groups, (g) => g.name, "group");
  const groupKeys = new Map(groups.map(({ key, remote }) => [remote.id, key]));
  const components = componentsOf(project, page, monitorKeys);
  const { id: _id, externalId: _e, passwordFingerprint: _p, groups: _g, components: _c, published, accessType, language, subscriptionsEnabled, ...fields } = page;
  return {
    ...withoutEmpty(fields),
    ...(accessType === DEFAULT_ACCESS_TYPE ? {} : { accessType }),
    ...(language === DEFAULT_PAGE_LANGUAGE ? {} : { language }),
    ...(subscriptionsEnabled === DEFAULT_SUBSCRIPTIONS_ENABLED ? {} : { subscriptionsEnabled }),
    ...(published ? {} : { published }),
    ...(groups.length ? { groups: Object.fromEntries(groups.map(({ key, remote, id }) => [key, { ...id, name: remote.name }])) } : {}),
    ...(components.length
      ? {
          components: Object.fromEntries(
            components.map(({ key, remote, id }) => [
              key,
              {
                ...id,
                type: remote.type,
                ...withoutEmpty({ monitor: monitorKeys.get(remote.monitorId) ?? "", name: remote.name, description: remote.description, group: groupKeys.get(remote.groupId) ?? "" }),
                ...(remote.order ? { order: remote.order } : {}),
                ...(remote.groupOrder ? { groupOrder: remote.groupOrder } : {}),
              },
            ]),
          ),
        }
      : {}),
  };
}

/** A window's fields that differ from what the file would get by leaving them out; its monitors and components by the file's names. */
function windowEntry(window: RemoteWindow, monitorKeys: Map<string, string>, componentNames: Map<string, string>): Json {
  return {
    title: window.title,
    ...withoutEmpty({ message: window.message }),
    startsAt: rfc3339(window.startsAt),
    endsAt: rfc3339(window.endsAt),
    ...withoutEmpty({ recurrence: window.recurrence }),
    ...(window.timezone === DEFAULTS.timezone ? {} : { timezone: window.timezone }),
    ...withoutEmpty({
      monitors: window.monitorIds.map((id) => monitorKeys.get(id) ?? id),
      components: window.pageComponentIds.map((id) => componentNames.get(id) ?? id),
    }),
  };
}

/**
 * The workspace as a vigil.yaml whose plan shows no changes. Sensitive
 * values are never answered by the API, so they are left out, which keeps
 * the stored ones; a comment says where to give them. Credentials a read
 * key is answered as fingerprints are written as such, with a comment.
 */
export function exportWorkspace(workspace: Workspace, project: string): string {
  const monitors = keyed(project, workspace.monitors, (m) => m.config.name, "monitor");
  const monitorKeys = new Map(monitors.map(({ key, remote }) => [remote.id, key]));
  const channels = keyed(project, workspace.notifications, (n) => n.name || n.type, "channel");
  const pages = keyed(project, workspace.statusPages, (p) => p.title, "page");
  const componentNames = new Map(
    pages.flatMap(({ key: pageKey, remote: page }) => componentsOf(project, page, monitorKeys).map(({ key, remote }) => [remote.id, `${pageKey}/${key}`] as const)),
  );
  const windows = keyed(project, workspace.maintenanceWindows, (w) => w.title, "window");
  const file = {
    version: FILE_VERSION,
    project,
    monitors: Object.fromEntries(monitors.map(({ key, remote, id }) => [key, { ...id, ...monitorEntry(remote, monitorKeys) }])),
    notifications: Object.fromEntries(
      channels.map(({ key, remote, id }) => {
        const secrets = SENSITIVE_FIELDS[remote.type] as readonly string[];
        const block = Object.fromEntries(Object.entries(remote.block).filter(([field, value]) => !secrets.includes(field) && !isEmpty(value)));
        const monitorsOf = remote.monitorIds.map((monitorId) => monitorKeys.get(monitorId)!);
        const reminders = remote.reminderMinutes > 0 ? { reminderMinutes: remote.reminderMinutes } : {};
        return [key, { ...id, ...withoutEmpty({ name: remote.name, monitors: monitorsOf }), ...reminders, [blockName(remote.type)]: block }];
      }),
    ),
    statusPages: Object.fromEntries(pages.map(({ key, remote, id }) => [key, { ...id, ...pageEntry(remote, monitorKeys, project) }])),
    maintenanceWindows: Object.fromEntries(windows.map(({ key, remote, id }) => [key, { ...id, ...windowEntry(remote, monitorKeys, componentNames) }])),
  };
  const doc = new Document(file);
  doc.commentBefore = ` Vigil workspace, written by \`vigil export\`. \`vigil plan -f <this file>\` shows no changes.\n Entries with an id manage the object they name; the others are found by their key.`;
  for (const { key, remote } of channels) {
    const secrets = SENSITIVE_FIELDS[remote.type] as readonly string[];
    const node = doc.getIn(["notifications", key, blockName(remote.type)], true) as YAMLMap | undefined;
    if (node && secrets.length > 0) {
      node.commentBefore = ` ${secrets.join(", ")}: sensitive, kept as stored while left out; to set, give e.g. \${${envName(key, secrets[0]!)}}`;
    }
  }
  // A read key is answered credentials as fingerprints: they stay in the file, standing for the stored values.
  const credentials = [
    ...monitors.map(({ key, remote }) => ({ path: ["monitors", key], fields: redactedCredentialFields(remote.config, "") })),
    ...channels.map(({ key, remote }) => ({ path: ["notifications", key], fields: redactedCredentialFields({ [blockName(remote.type)]: remote.block }, "") })),
  ];
  for (const { path, fields } of credentials) {
    const node = doc.getIn(path, true) as YAMLMap | undefined;
    if (node && fields.length > 0) {
      node.commentBefore = ` ${fields.map((f) => f.field).join(", ")}: fingerprints of credentials, as a read key is answered them; each stands for the stored value (plan compares by it, apply keeps it); to change one, give the value itself`;
    }
  }
  for (const { key, remote } of pages) {
    const node = doc.getIn(["statusPages", key], true) as YAMLMap | undefined;
    if (node && remote.accessType === "password") node.commentBefore = ` password: kept as stored while left out; to set, give e.g. \${${envName(key, "password")}}`;
  }
  return doc.toString({ lineWidth: 0 });
}

const envName = (key: string, field: string) => `${key}_${field}`.replace(/([a-z])([A-Z])/g, "$1_$2").replace(/[^A-Za-z0-9]+/g, "_").toUpperCase();
