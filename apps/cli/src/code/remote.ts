import {
  heartbeatInputFromMessage,
  maintenanceInputFromMessage,
  monitorInputFromMessage,
  notificationInputFromMessage,
  statusPageFields,
  type MaintenanceFields,
  type MonitorKind,
  type ProviderType,
} from "@vigil/domain";
import type { VigilClient } from "@vigil/client";
import type { DNSMonitor, GRPCMonitor, HTTPMonitor, HeartbeatMonitor, TCPMonitor } from "@vigil/proto";
import { parseEntryConfig, type EntryConfig, type EntryKind } from "./kinds.js";
import type { StatusPage, StatusPageComponent, StatusPageComponentGroup } from "@vigil/proto/status-page";

/** The workspace as the API answers it, in the file's terms. */
export interface Workspace {
  monitors: RemoteMonitor[];
  notifications: RemoteNotification[];
  statusPages: RemotePage[];
  maintenanceWindows: RemoteWindow[];
}

export interface RemoteWindow extends MaintenanceFields {
  id: string;
  externalId: string;
}

export interface RemoteMonitor {
  id: string;
  externalId: string;
  kind: EntryKind;
  config: EntryConfig;
}

export interface RemoteNotification {
  id: string;
  externalId: string;
  name: string;
  type: ProviderType;
  /** The block in its JSON form; sensitive fields are redacted (`secretFingerprints` tells them apart). */
  block: Record<string, unknown>;
  monitorIds: string[];
  reminderMinutes: number;
  secretFingerprints: Record<string, string>;
}

export interface RemotePage {
  id: string;
  externalId: string;
  title: string;
  slug: string;
  description: string;
  homepageUrl: string;
  contactUrl: string;
  icon: string;
  customDomain: string;
  accessType: string;
  authEmailDomains: string[];
  language: string;
  subscriptionsEnabled: boolean;
  published: boolean;
  passwordFingerprint: string;
  groups: RemoteGroup[];
  components: RemoteComponent[];
}

export interface RemoteGroup {
  id: string;
  externalId: string;
  name: string;
}

export interface RemoteComponent {
  id: string;
  externalId: string;
  type: string;
  monitorId: string;
  name: string;
  description: string;
  order: number;
  groupId: string;
  groupOrder: number;
}

/** The API's largest page of a list. */
const PAGE = 100;

/** Every item of a list: the first page tells the total, the rest are read together. */
async function listAll<T>(read: (limit: number, offset: number) => Promise<{ items: T[]; totalSize: number }>): Promise<T[]> {
  const first = await read(PAGE, 0);
  const offsets: number[] = [];
  for (let offset = PAGE; offset < first.totalSize; offset += PAGE) offsets.push(offset);
  const rest = await Promise.all(offsets.map((offset) => read(PAGE, offset)));
  return [first, ...rest].flatMap((page) => page.items);
}

function remoteMonitor(kind: EntryKind, message: HTTPMonitor | TCPMonitor | DNSMonitor | GRPCMonitor | HeartbeatMonitor): RemoteMonitor {
  const input = kind === "heartbeat" ? heartbeatInputFromMessage(message as HeartbeatMonitor) : monitorInputFromMessage(kind as MonitorKind, message as never);
  return { id: message.id, externalId: message.externalId ?? "", kind, config: parseEntryConfig(kind, input) };
}

async function readMonitors(client: VigilClient): Promise<RemoteMonitor[]> {
  return listAll(async (limit, offset) => {
    const r = await client.monitors.listMonitors({ limit, offset });
    return {
      totalSize: r.totalSize,
      items: [
        ...r.httpMonitors.map((m) => remoteMonitor("http", m)),
        ...r.tcpMonitors.map((m) => remoteMonitor("tcp", m)),
        ...r.dnsMonitors.map((m) => remoteMonitor("dns", m)),
        ...r.heartbeatMonitors.map((m) => remoteMonitor("heartbeat", m)),
        ...r.grpcMonitors.map((m) => remoteMonitor("grpc", m)),
      ],
    };
  });
}

async function readNotifications(client: VigilClient): Promise<RemoteNotification[]> {
  const messages = await listAll(async (limit, offset) => {
    const r = await client.notifications.listNotifications({ limit, offset });
    return { items: r.notifications, totalSize: r.totalSize };
  });
  return messages.map((message) => {
    const input = notificationInputFromMessage(message);
    return {
      id: message.id,
      externalId: message.externalId ?? "",
      name: message.name ?? "",
      type: input.block!.type,
      block: input.block!.fields as Record<string, unknown>,
      monitorIds: input.monitorIds,
      reminderMinutes: message.reminderMinutes ?? 0,
      secretFingerprints: { ...message.secretFingerprints },
    };
  });
}

const remoteGroup = (g: StatusPageComponentGroup): RemoteGroup => ({ id: g.id, externalId: g.externalId ?? "", name: g.name ?? "" });

const remoteComponent = (c: StatusPageComponent): RemoteComponent => ({
  id: c.id,
  externalId: c.externalId ?? "",
  type: c.type,
  monitorId: c.monitorId ?? "",
  name: c.name ?? "",
  description: c.description ?? "",
  order: c.order ?? 0,
  groupId: c.groupId ?? "",
  groupOrder: c.groupOrder ?? 0,
});

async function readPage(client: VigilClient, page: StatusPage): Promise<RemotePage> {
  const pageId = page.id;
  const [groups, components] = await Promise.all([
    listAll(async (limit, offset) => {
      const r = await client.statusPages.listStatusPageComponentGroups({ pageId, limit, offset });
      return { items: r.groups.map(remoteGroup), totalSize: r.totalSize };
    }),
    listAll(async (limit, offset) => {
      const r = await client.statusPages.listStatusPageComponents({ pageId, limit, offset });
      return { items: r.components.map(remoteComponent), totalSize: r.totalSize };
    }),
  ]);
  return {
    id: pageId,
    externalId: page.externalId ?? "",
    ...statusPageFields(page),
    published: page.published,
    passwordFingerprint: page.passwordFingerprint,
    groups,
    components,
  };
}

async function readStatusPages(client: VigilClient): Promise<RemotePage[]> {
  const pages = await listAll(async (limit, offset) => {
    const r = await client.statusPages.listStatusPages({ limit, offset });
    return { items: r.statusPages, totalSize: r.totalSize };
  });
  return Promise.all(pages.map((page) => readPage(client, page)));
}

async function readWindows(client: VigilClient): Promise<RemoteWindow[]> {
  const windows = await listAll(async (limit, offset) => {
    const r = await client.maintenance.listMaintenanceWindows({ limit, offset });
    return { items: r.maintenances, totalSize: r.totalSize };
  });
  // As stored, not checked again: a window whose monitors were all deleted since still has to be read.
  return windows.map((w) => {
    const input = maintenanceInputFromMessage(w) as Partial<MaintenanceFields>;
    return {
      id: w.id,
      externalId: w.externalId ?? "",
      title: input.title ?? "",
      message: input.message ?? "",
      startsAt: input.startsAt ?? new Date(0),
      endsAt: input.endsAt ?? new Date(0),
      recurrence: input.recurrence ?? "",
      timezone: input.timezone ?? "",
      monitorIds: input.monitorIds ?? [],
      pageComponentIds: input.pageComponentIds ?? [],
    };
  });
}

/** Reads everything a file can describe, in as few rounds of calls as the API allows. */
export async function readWorkspace(client: VigilClient): Promise<Workspace> {
  const [monitors, notifications, statusPages, maintenanceWindows] = await Promise.all([
    readMonitors(client),
    readNotifications(client),
    readStatusPages(client),
    readWindows(client),
  ]);
  return { monitors, notifications, statusPages, maintenanceWindows };
}
