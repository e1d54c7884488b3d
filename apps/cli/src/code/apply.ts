import { VigilError, type VigilClient } from "@vigil/client";
import { blockName, monitorToMessage } from "@vigil/domain";
import pLimit from "p-limit";
import { CliError, describeFailure } from "../failures.js";
import { allSteps, type ComponentDesired, type MonitorDesired, type NotificationDesired, type PageStep, type Plan, type Step } from "./plan.js";

export interface ApplyOptions {
  /** Calls in flight at once. */
  concurrency: number;
  /** Called after each change with how many are done. */
  onProgress: (done: number, total: number) => void;
  apiUrl: string;
}

type AnyStep = Step<unknown, unknown>;

/** The API's message of a monitor the file wants: every field set, none of the read-only ones. */
function monitorMessage(desired: MonitorDesired, externalId: string | undefined) {
  const message = monitorToMessage({ id: "", kind: desired.kind, config: desired.config, status: "unknown", externalId: null, createdAt: new Date(0), updatedAt: new Date(0) });
  return { ...message, status: 0, createdAt: undefined, updatedAt: undefined, externalId };
}

const MONITOR_CALLS = {
  http: { create: "createHTTPMonitor", update: "updateHTTPMonitor" },
  tcp: { create: "createTCPMonitor", update: "updateTCPMonitor" },
  dns: { create: "createDNSMonitor", update: "updateDNSMonitor" },
} as const;

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
 * then channels, pages, their groups and components; deletions last, the
 * children before what holds them. Each phase runs its calls in parallel.
 */
export async function applyPlan(client: VigilClient, plan: Plan, options: ApplyOptions): Promise<void> {
  const limit = pLimit(options.concurrency);
  const total = allSteps(plan).filter((step) => step.action !== "none").length;
  let done = 0;
  let failure: { step: AnyStep; error: unknown } | undefined;

  /** Runs each step's change in parallel; after a failure, starts no more. */
  const phase = <S extends AnyStep>(steps: S[], run: (step: S) => Promise<void>) =>
    Promise.all(
      steps.map((step) =>
        limit(async () => {
          if (failure) return;
          try {
            await run(step);
            options.onProgress(++done, total);
          } catch (error) {
            failure ??= { step, error };
          }
        }),
      ),
    ).then(() => {
      if (failure) {
        const { step, error } = failure;
        throw new CliError(`${step.address}: ${describeFailure(error, options.apiUrl)}\n${done} of ${total} changes were made before it; run plan to see what is left.`);
      }
    });

  const monitorIds = new Map<string, string>();
  for (const step of plan.monitors) if (step.remote && step.action !== "replace") monitorIds.set(step.key, step.remote.id);
  const monitorId = (key: string | undefined) => (key === undefined ? "" : monitorIds.get(key)!);

  await phase(
    plan.monitors.filter((s) => s.action === "replace"),
    (step) => deleted(client.monitors.deleteMonitor({ id: step.remote!.id })),
  );
  await phase(
    plan.monitors.filter((s) => s.action === "create" || s.action === "update" || s.action === "replace"),
    async (step) => {
      const desired = step.desired!;
      const calls = MONITOR_CALLS[desired.kind];
      if (step.action === "update") {
        const request = { id: step.remote!.id, monitor: monitorMessage(desired, undefined), updateMask: { paths: step.fields.map((f) => f.field) } };
        await (client.monitors[calls.update] as (r: unknown) => Promise<unknown>)(request);
        return;
      }
      const answer = (await (client.monitors[calls.create] as (r: unknown) => Promise<{ monitor?: { id: string } }>)({ monitor: monitorMessage(desired, step.externalId) })) ?? {};
      monitorIds.set(step.key, answer.monitor!.id);
    },
  );

  await phase(
    plan.notifications.filter((s) => s.action === "create" || s.action === "update"),
    (step) => applyNotification(client, step, (key) => monitorId(key)),
  );

  const pageIds = new Map<PageStep, string>();
  await phase(
    plan.statusPages.filter((s) => s.action === "create" || s.action === "update"),
    async (step) => void pageIds.set(step, await applyPage(client, step)),
  );
  const pageId = (page: PageStep) => pageIds.get(page) ?? page.remote!.id;
  const livePages = plan.statusPages.filter((page) => page.action !== "delete");
  const groupIds = new Map<PageStep, Map<string, string>>();
  for (const page of livePages) groupIds.set(page, new Map(page.groups.filter((g) => g.remote).map((g) => [g.key, g.remote!.id])));
  await phase(
    livePages.flatMap((page) => page.groups.filter((g) => g.action === "create" || g.action === "update").map((group) => Object.assign(group, { page }))),
    async (step) => {
      const inPage = pageId(step.page);
      if (step.action === "update") {
        await client.statusPages.updateStatusPageComponentGroup({ pageId: inPage, id: step.remote!.id, group: step.desired!, updateMask: { paths: ["name"] } });
        return;
      }
      const { group } = await client.statusPages.createStatusPageComponentGroup({ group: { pageId: inPage, ...step.desired!, externalId: step.externalId } });
      groupIds.get(step.page)!.set(step.key, group!.id);
    },
  );
  const components = livePages.flatMap((page) => page.components.map((component) => Object.assign(component, { page })));
  await phase(
    components.filter((s) => s.action === "replace"),
    (step) => deleted(client.statusPages.deleteStatusPageComponent({ pageId: pageId(step.page), id: step.remote!.id })),
  );
  await phase(
    components.filter((s) => s.action === "create" || s.action === "update" || s.action === "replace"),
    async (step) => {
      const inPage = pageId(step.page);
      const groups = groupIds.get(step.page)!;
      const fields = componentFields(step.desired!, monitorId, (key) => (key === undefined ? "" : groups.get(key)!));
      if (step.action === "update") {
        const paths = step.fields.map((f) => ({ monitor: "monitorId", group: "groupId" })[f.field] ?? f.field);
        await client.statusPages.updateStatusPageComponent({ pageId: inPage, id: step.remote!.id, component: fields, updateMask: { paths } });
        return;
      }
      await client.statusPages.createStatusPageComponent({ component: { pageId: inPage, ...fields, externalId: step.externalId } });
    },
  );

  const gone = (step: AnyStep) => step.action === "delete";
  await phase(
    livePages.flatMap((page) => page.components.filter(gone).map((step) => ({ ...step, pageId: pageId(page) }))),
    (step) => deleted(client.statusPages.deleteStatusPageComponent({ pageId: step.pageId, id: (step.remote as { id: string }).id })),
  );
  await phase(
    livePages.flatMap((page) => page.groups.filter(gone).map((step) => ({ ...step, pageId: pageId(page) }))),
    (step) => deleted(client.statusPages.deleteStatusPageComponentGroup({ pageId: step.pageId, id: (step.remote as { id: string }).id })),
  );
  await phase(plan.statusPages.filter(gone), (step) => deleted(client.statusPages.deleteStatusPage({ id: step.remote!.id })));
  await phase(plan.notifications.filter(gone), (step) => deleted(client.notifications.deleteNotification({ id: step.remote!.id })));
  await phase(plan.monitors.filter(gone), (step) => deleted(client.monitors.deleteMonitor({ id: step.remote!.id })));
}

function componentFields(desired: ComponentDesired, monitorId: (key: string | undefined) => string, groupId: (key: string | undefined) => string) {
  const { monitor, group, ...rest } = desired;
  return { ...rest, monitorId: monitorId(monitor), groupId: groupId(group) };
}

async function applyNotification(client: VigilClient, step: Step<NotificationDesired, { id: string; type: string; block: Record<string, unknown> }>, monitorId: (key: string) => string) {
  const desired = step.desired!;
  const blockKey = blockName(desired.type);
  const current = step.remote;
  // A sensitive field the file leaves out is sent back in its redacted form, which keeps the stored value.
  const block = current && current.type === desired.type ? { ...current.block, ...desired.block } : desired.block;
  const notification = {
    name: desired.name,
    monitorIds: desired.monitors.map(monitorId),
    provider: { case: blockKey, value: block },
  };
  if (step.action === "create") {
    await client.notifications.createNotification({ notification: { ...notification, externalId: step.externalId } as never });
    return;
  }
  const paths = [...new Set(step.fields.map((f) => (f.field === "name" ? "name" : f.field === "monitors" ? "monitor_ids" : blockKey)))];
  await client.notifications.updateNotification({ id: current!.id, notification: notification as never, updateMask: { paths } });
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
