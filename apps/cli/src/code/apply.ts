import { VigilError, type VigilClient } from "@vigil/client";
import { blockName } from "@vigil/domain";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import pLimit from "p-limit";
import { CliError, describeFailure } from "../failures.js";
import { entryMessage } from "./kinds.js";
import { allSteps, type ComponentDesired, type MonitorDesired, type NotificationDesired, type PageStep, type Plan, type Step, type WindowDesired } from "./plan.js";
import type { RemoteNotification, RemoteWindow } from "./remote.js";

export interface ApplyOptions {
  /** Calls in flight at once. */
  concurrency: number;
  /** Called after each change with how many are done. */
  onProgress: (done: number, total: number) => void;
  apiUrl: string;
}

/** Something to do for one step of the plan; `finishes` when it is the step's last call (a replacement makes two). */
interface Task {
  address: string;
  finishes: boolean;
  run: () => Promise<void>;
}

const changes = (action: string) => action === "create" || action === "update" || action === "replace";

/** A delete of something already gone (with its page or its monitor) has nothing left to do. */
async function deleted(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof VigilError && error.code === "not_found")) throw error;
  }
}

/**
 * Carries out a plan: monitors first (channels and components name them),
 * then channels, pages, their groups and components, then maintenance
 * windows (they name monitors and components); deletions last, windows
 * first, the children before what holds them. Each phase runs its calls in parallel;
 * after a failure no more calls start.
 */
export async function applyPlan(client: VigilClient, plan: Plan, options: ApplyOptions): Promise<void> {
  const limit = pLimit(options.concurrency);
  const total = allSteps(plan).filter((step) => step.action !== "none").length;
  let done = 0;
  let failure: { address: string; error: unknown } | undefined;

  const phase = async (tasks: Task[]) => {
    await Promise.all(
      tasks.map((task) =>
        limit(async () => {
          if (failure) return;
          try {
            await task.run();
            if (task.finishes) options.onProgress(++done, total);
          } catch (error) {
            failure ??= { address: task.address, error };
          }
        }),
      ),
    );
    if (failure) {
      const { address, error } = failure;
      throw new CliError(`${address}: ${describeFailure(error, options.apiUrl)}\n${done} of ${total} changes were made before it; run plan to see what is left.`);
    }
  };
  const task = (step: { address: string }, run: () => Promise<unknown>, finishes = true): Task => ({ address: step.address, finishes, run: async () => void (await run()) });

  const ids = new AppliedIds(plan);

  await phase(plan.monitors.filter((s) => s.action === "replace").map((s) => task(s, () => deleted(client.monitors.deleteMonitor({ id: s.remote!.id })), false)));
  // Monitors a step's dependsOn names are created (or changed) in an earlier phase: the API needs their ids.
  for (const level of dependencyLevels(plan.monitors.filter((s) => changes(s.action)))) {
    await phase(level.map((s) => task(s, () => applyMonitor(client, s, ids))));
  }
  await phase(plan.notifications.filter((s) => changes(s.action)).map((s) => task(s, () => applyNotification(client, s, ids))));
  await phase(plan.statusPages.filter((s) => changes(s.action)).map((s) => task(s, async () => ids.pages.set(s, await applyPage(client, s)))));

  const livePages = plan.statusPages.filter((page) => page.action !== "delete");
  const children = <K extends "groups" | "components">(kind: K) => livePages.flatMap((page) => page[kind].map((step) => ({ page, step: step as PageStep[K][number] })));
  await phase(children("groups").filter(({ step }) => changes(step.action)).map(({ page, step }) => task(step, () => applyGroup(client, page, step, ids))));
  const components = children("components");
  await phase(
    components
      .filter(({ step }) => step.action === "replace")
      .map(({ page, step }) => task(step, () => deleted(client.statusPages.deleteStatusPageComponent({ pageId: ids.page(page), id: step.remote!.id })), false)),
  );
  await phase(components.filter(({ step }) => changes(step.action)).map(({ page, step }) => task(step, () => applyComponent(client, page, step, ids))));
  await phase(plan.maintenanceWindows.filter((s) => changes(s.action)).map((s) => task(s, () => applyWindow(client, s, ids))));

  await phase(plan.maintenanceWindows.filter((s) => s.action === "delete").map((s) => task(s, () => deleted(client.maintenance.deleteMaintenanceWindow({ id: s.remote!.id })))));
  const gone = ({ step }: { step: { action: string } }) => step.action === "delete";
  await phase(
    components.filter(gone).map(({ page, step }) => task(step, () => deleted(client.statusPages.deleteStatusPageComponent({ pageId: ids.page(page), id: step.remote!.id })))),
  );
  await phase(
    children("groups")
      .filter(gone)
      .map(({ page, step }) => task(step, () => deleted(client.statusPages.deleteStatusPageComponentGroup({ pageId: ids.page(page), id: step.remote!.id })))),
  );
  await phase(plan.statusPages.filter((s) => s.action === "delete").map((s) => task(s, () => deleted(client.statusPages.deleteStatusPage({ id: s.remote!.id })))));
  await phase(plan.notifications.filter((s) => s.action === "delete").map((s) => task(s, () => deleted(client.notifications.deleteNotification({ id: s.remote!.id })))));
  await phase(plan.monitors.filter((s) => s.action === "delete").map((s) => task(s, () => deleted(client.monitors.deleteMonitor({ id: s.remote!.id })))));
}

/** Monitor steps in phases: each after those of the others that it depends on (the file has no cycle, references.ts). */
function dependencyLevels(steps: Step<MonitorDesired, unknown>[]): Step<MonitorDesired, unknown>[][] {
  const byKey = new Map(steps.map((step) => [step.key, step]));
  const levels = new Map<string, number>();
  const levelOf = (key: string): number => {
    const known = levels.get(key);
    if (known !== undefined) return known;
    levels.set(key, 0);
    const deps = byKey.get(key)!.desired!.config.dependsOn.filter((dep) => byKey.has(dep));
    const level = deps.length === 0 ? 0 : 1 + Math.max(...deps.map(levelOf));
    levels.set(key, level);
    return level;
  };
  const phases: Step<MonitorDesired, unknown>[][] = [];
  for (const step of steps) (phases[levelOf(step.key)] ??= []).push(step);
  return phases.filter(Boolean);
}

/** The server ids behind the file's keys: known from the start for existing objects, learnt as creates answer. */
class AppliedIds {
  readonly monitors = new Map<string, string>();
  readonly pages = new Map<PageStep, string>();
  readonly groups = new Map<PageStep, Map<string, string>>();
  /** By `<page key>/<component key>`, as windows name them. */
  readonly components = new Map<string, string>();

  constructor(plan: Plan) {
    for (const step of plan.monitors) if (step.remote && step.action !== "replace") this.monitors.set(step.key, step.remote.id);
    for (const page of plan.statusPages) {
      if (page.remote) this.pages.set(page, page.remote.id);
      this.groups.set(page, new Map(page.groups.filter((g) => g.remote).map((g) => [g.key, g.remote!.id])));
      for (const c of page.components) if (c.remote && c.action !== "replace") this.components.set(componentName(page, c.key), c.remote.id);
    }
  }

  monitor = (key: string | undefined) => (key === undefined ? "" : this.monitors.get(key)!);
  page = (page: PageStep) => this.pages.get(page)!;
  group = (page: PageStep, key: string | undefined) => (key === undefined ? "" : this.groups.get(page)!.get(key)!);
}

const MONITOR_CALLS = {
  http: { create: "createHTTPMonitor", update: "updateHTTPMonitor" },
  tcp: { create: "createTCPMonitor", update: "updateTCPMonitor" },
  dns: { create: "createDNSMonitor", update: "updateDNSMonitor" },
  heartbeat: { create: "createHeartbeatMonitor", update: "updateHeartbeatMonitor" },
  grpc: { create: "createGRPCMonitor", update: "updateGRPCMonitor" },
} as const;

type Call = (request: unknown) => Promise<{ monitor?: { id: string } }>;

async function applyMonitor(client: VigilClient, step: Step<MonitorDesired, unknown>, ids: AppliedIds): Promise<void> {
  const desired = { ...step.desired!, config: { ...step.desired!.config, dependsOn: step.desired!.config.dependsOn.map(ids.monitor) } };
  const calls = MONITOR_CALLS[desired.kind];
  if (step.action === "update") {
    const request = { id: (step.remote as { id: string }).id, monitor: entryMessage(desired.kind, desired.config), updateMask: { paths: step.fields.map((f) => f.field) } };
    await (client.monitors[calls.update] as Call)(request);
    return;
  }
  const { monitor } = await (client.monitors[calls.create] as Call)({ monitor: entryMessage(desired.kind, desired.config, step.externalId) });
  ids.monitors.set(step.key, monitor!.id);
}

async function applyNotification(client: VigilClient, step: Step<NotificationDesired, RemoteNotification>, ids: AppliedIds): Promise<void> {
  const desired = step.desired!;
  const blockKey = blockName(desired.type);
  const current = step.remote;
  // A sensitive field the file leaves out is sent back in its redacted form, which keeps the stored value.
  const block = current && current.type === desired.type ? { ...current.block, ...desired.block } : desired.block;
  const notification = {
    name: desired.name,
    monitorIds: desired.monitors.map(ids.monitor),
    reminderMinutes: desired.reminderMinutes,
    provider: { case: blockKey, value: block },
  } as never;
  if (step.action === "create") {
    await client.notifications.createNotification({ notification: { ...(notification as object), externalId: step.externalId } as never });
    return;
  }
  const maskPath: Record<string, string> = { name: "name", monitors: "monitor_ids", reminderMinutes: "reminder_minutes" };
  const paths = [...new Set(step.fields.map((f) => maskPath[f.field] ?? blockKey))];
  await client.notifications.updateNotification({ id: current!.id, notification, updateMask: { paths } });
}

/** Creates or changes a page, publishing or hiding it as the file says; answers its id. */
async function applyPage(client: VigilClient, step: PageStep): Promise<string> {
  const { published, ...fields } = step.desired!;
  if (step.action === "create") {
    const { statusPage } = await client.statusPages.createStatusPage({ statusPage: { ...fields, externalId: step.externalId } });
    if (!published) await client.statusPages.unpublishStatusPage({ id: statusPage!.id });
    return statusPage!.id;
  }
  const id = step.remote!.id;
  const paths = step.fields.map((f) => f.field).filter((field) => field !== "published");
  if (paths.length > 0) await client.statusPages.updateStatusPage({ id, statusPage: fields, updateMask: { paths } });
  if (step.fields.some((f) => f.field === "published")) {
    await (published ? client.statusPages.publishStatusPage({ id }) : client.statusPages.unpublishStatusPage({ id }));
  }
  return id;
}

async function applyGroup(client: VigilClient, page: PageStep, step: PageStep["groups"][number], ids: AppliedIds): Promise<void> {
  const pageId = ids.page(page);
  if (step.action === "update") {
    await client.statusPages.updateStatusPageComponentGroup({ pageId, id: step.remote!.id, group: step.desired!, updateMask: { paths: ["name"] } });
    return;
  }
  const { group } = await client.statusPages.createStatusPageComponentGroup({ group: { pageId, ...step.desired!, externalId: step.externalId } });
  ids.groups.get(page)!.set(step.key, group!.id);
}

/** The file names a component's monitor and group by key; the API by id. */
const FIELD_OF_KEY: Record<string, string> = { monitor: "monitorId", group: "groupId" };

async function applyComponent(client: VigilClient, page: PageStep, step: Step<ComponentDesired, { id: string }>, ids: AppliedIds): Promise<void> {
  const pageId = ids.page(page);
  const { monitor, group, ...rest } = step.desired!;
  const component = { ...rest, monitorId: ids.monitor(monitor), groupId: ids.group(page, group) };
  if (step.action === "update") {
    const paths = step.fields.map((f) => FIELD_OF_KEY[f.field] ?? f.field);
    await client.statusPages.updateStatusPageComponent({ pageId, id: step.remote!.id, component, updateMask: { paths } });
    return;
  }
  const { component: created } = await client.statusPages.createStatusPageComponent({ component: { pageId, ...component, externalId: step.externalId } });
  ids.components.set(componentName(page, step.key), created!.id);
}

const componentName = (page: PageStep, key: string) => `${page.key}/${key}`;

/** The update mask's names of the fields the file names otherwise. */
const WINDOW_MASK: Record<string, string> = { monitors: "monitorIds", components: "pageComponentIds" };

async function applyWindow(client: VigilClient, step: Step<WindowDesired, RemoteWindow>, ids: AppliedIds): Promise<void> {
  const { monitors, components, startsAt, endsAt, ...rest } = step.desired!;
  const maintenance = {
    ...rest,
    startsAt: timestampFromDate(new Date(startsAt)),
    endsAt: timestampFromDate(new Date(endsAt)),
    // Keys of the file's objects have ids by now; other names are ids already (the plan checked them).
    monitorIds: monitors.map((name) => ids.monitors.get(name) ?? name),
    pageComponentIds: components.map((name) => ids.components.get(name) ?? name),
  };
  if (step.action === "update") {
    const paths = step.fields.map((f) => WINDOW_MASK[f.field] ?? f.field);
    await client.maintenance.updateMaintenanceWindow({ id: step.remote!.id, maintenance, updateMask: { paths } });
    return;
  }
  await client.maintenance.createMaintenanceWindow({ maintenance: { ...maintenance, externalId: step.externalId } });
}
