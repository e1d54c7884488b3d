// The baseline of the benchmark: the creates an apply of the file makes, sent straight through the
// client library, as a script written by hand for this one workspace would send them. The requests
// are built before the clock starts; the calls run `parallelism` at a time, in the order their ids
// are needed: monitors, then channels and pages, then groups, then components.
import { monitorToMessage, parseMonitorConfig, type MonitorKind } from "@vigil/domain";
// The built client, as apps/cli imports it.
import { createClient } from "@vigil/client";
import { inParallel } from "../support/run";
import type { WorkspaceFile } from "./workspace-file";

type Client = ReturnType<typeof createClient>;

const externalId = (project: string, key: string) => `${project}/${key}`;

/** CreateXMonitor's request for a file entry: every field set, as the CLI sends it. */
function monitorRequest(project: string, key: string, entry: WorkspaceFile["monitors"][string]) {
  const { type: kind, ...fields } = entry;
  const message = monitorToMessage({
    id: "",
    kind: kind as MonitorKind,
    config: parseMonitorConfig(kind as MonitorKind, fields),
    status: "unknown",
    externalId: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  });
  return { monitor: { ...message, status: 0, createdAt: undefined, updatedAt: undefined, externalId: externalId(project, key) } };
}

const CREATE_MONITOR = { http: "createHTTPMonitor", tcp: "createTCPMonitor", dns: "createDNSMonitor" } as const;
const PROVIDER_BLOCKS = ["slack", "discord", "webhook"] as const;

/** The requests, ready to send; `file` has its variables replaced. Answers a function that sends them all. */
export function rawCreates(file: WorkspaceFile, parallelism: number) {
  const { project } = file;
  const monitors = Object.entries(file.monitors).map(([key, entry]) => ({ key, kind: entry.type, request: monitorRequest(project, key, entry) }));
  const channels = Object.entries(file.notifications).map(([key, { name, monitors: linked, ...blocks }]) => {
    const provider = PROVIDER_BLOCKS.find((block) => blocks[block] !== undefined)!;
    return { key, name: name as string, linked, provider: { case: provider, value: blocks[provider] } };
  });
  const pages = Object.entries(file.statusPages).map(([key, { groups, components, ...fields }]) => ({
    request: { statusPage: { ...fields, externalId: externalId(project, key) } },
    groups: Object.entries(groups).map(([groupKey, group]) => ({ key: groupKey, ...group })),
    components: Object.entries(components).map(([componentKey, { monitor, group, ...fields }]) => ({ key: componentKey, monitor, group, fields })),
  }));

  return async function send(client: Client): Promise<void> {
    const monitorIds = new Map<string, string>();
    await inParallel(monitors, parallelism, async ({ key, kind, request }) => {
      const created = await (client.monitors[CREATE_MONITOR[kind]] as (r: unknown) => Promise<{ monitor?: { id: string } }>)(request);
      monitorIds.set(key, created.monitor!.id);
    });

    const pageIds = new Map<(typeof pages)[number], string>();
    const pageCreates = pages.map((page) => async () => {
      const { statusPage } = await client.statusPages.createStatusPage(page.request);
      pageIds.set(page, statusPage!.id);
    });
    const channelCreates = channels.map(({ key, name, linked, provider }) => async () => {
      const notification = { name, monitorIds: linked.map((monitor) => monitorIds.get(monitor)!), provider, externalId: externalId(project, key) };
      await client.notifications.createNotification({ notification: notification as never });
    });
    await inParallel([...channelCreates, ...pageCreates], parallelism, (create) => create());

    const groupIds = new Map<string, string>();
    const groups = pages.flatMap((page) => page.groups.map((group) => ({ page, group })));
    await inParallel(groups, parallelism, async ({ page, group }) => {
      const pageId = pageIds.get(page)!;
      const created = await client.statusPages.createStatusPageComponentGroup({ group: { pageId, name: group.name, externalId: externalId(project, group.key) } });
      groupIds.set(`${pageId}/${group.key}`, created.group!.id);
    });

    const components = pages.flatMap((page) => page.components.map((component) => ({ pageId: pageIds.get(page)!, component })));
    await inParallel(components, parallelism, async ({ pageId, component: { key, monitor, group, fields } }) => {
      const component = {
        pageId,
        ...fields,
        monitorId: monitor === undefined ? "" : monitorIds.get(monitor)!,
        groupId: group === undefined ? "" : groupIds.get(`${pageId}/${group}`)!,
        externalId: externalId(project, key),
      };
      await client.statusPages.createStatusPageComponent({ component: component as never });
    });
  };
}
