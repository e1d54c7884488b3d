import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  ValidationError,
  maintenanceChanges,
  maintenanceInputFromMessage,
  maintenanceToMessage,
  maintenanceViolations,
  parseExternalId,
  parseId,
  parseMaintenance,
  parseMaintenanceChanges,
  parsePage,
  throwViolations,
  type MaintenanceFields,
  type MaintenanceView,
} from "@vigil/domain";
import { MaintenanceWindowSchema, type MaintenanceService } from "@vigil/proto";
import type { Logger } from "@vigil/logging";
import { actorOf } from "../auth/context";
import type { Changes } from "../changes/changes";
import { notFound } from "../errors";
import type { AfterCommit, MaintenanceEvents } from "./events";
import type { MaintenanceRepository } from "./repository";

/**
 * MaintenanceService: windows of the caller's workspace. A write tells the
 * public pages showing a component named (before or after) that they changed.
 */
export function maintenanceService(
  windows: MaintenanceRepository,
  pageChanges: Changes,
  events: MaintenanceEvents,
  logger: Logger,
  clock: () => Date = () => new Date(),
): ServiceImpl<typeof MaintenanceService> {
  const workspaceOf = (ctx: HandlerContext) => actorOf(ctx).workspace.id;
  const answer = (window: MaintenanceView) => ({ maintenance: maintenanceToMessage(window, clock()) });

  const find = async (ctx: HandlerContext, id: string) => {
    const window = await windows.find(workspaceOf(ctx), parseId(id));
    if (!window) throw notFound(`maintenance window ${id}`);
    return window;
  };

  /** Every monitor and component named is the workspace's; returns the pages of the components. */
  async function requireNamed(workspaceId: string, fields: Pick<MaintenanceFields, "monitorIds" | "pageComponentIds">): Promise<string[]> {
    const [monitors, components] = await Promise.all([windows.monitorsOf(workspaceId, fields.monitorIds), windows.componentsOf(workspaceId, fields.pageComponentIds)]);
    throwViolations(
      [
        ...fields.monitorIds.flatMap((id, i) => (monitors.has(id) ? [] : [{ field: `monitorIds[${i}]`, rule: `no monitor ${id} in this workspace` }])),
        ...fields.pageComponentIds.flatMap((id, i) => (components.has(id) ? [] : [{ field: `pageComponentIds[${i}]`, rule: `no status page component ${id} in this workspace` }])),
      ],
      "maintenance",
    );
    return [...new Set(components.values())];
  }

  const publish = (pages: readonly string[]) => new Set(pages).forEach((page) => pageChanges.publish(page));

  return {
    async createMaintenanceWindow(req, ctx) {
      if (!req.maintenance) throw ValidationError.of("maintenance", "is required");
      const fields = parseMaintenance(maintenanceInputFromMessage(req.maintenance));
      const externalId = parseExternalId(req.maintenance.externalId, "maintenance.externalId");
      const pages = await requireNamed(workspaceOf(ctx), fields);
      let told: AfterCommit | undefined;
      const saved = await windows.create(workspaceOf(ctx), fields, externalId, async (tx, window) => {
        told = await events.scheduled(tx, window);
      });
      publish(pages);
      await told?.().catch((error: unknown) => logger.warn({ err: error, windowId: saved.id }, "telling of a scheduled maintenance failed"));
      return answer(saved);
    },

    async listMaintenanceWindows(req, ctx) {
      const list = parsePage({ limit: req.limit, offset: req.offset });
      const { records, total } = await windows.list(workspaceOf(ctx), list.limit, list.offset);
      return { maintenances: records.map((w) => maintenanceToMessage(w, clock())), totalSize: total };
    },

    async getMaintenanceWindow(req, ctx) {
      return answer(await find(ctx, req.id));
    },

    async updateMaintenanceWindow(req, ctx) {
      const current = await find(ctx, req.id);
      const { externalId: externalIdSent, ...sent } = maintenanceChanges(req.maintenance ?? create(MaintenanceWindowSchema), req.updateMask);
      const changes = parseMaintenanceChanges(sent);
      const externalId = externalIdSent === undefined ? undefined : parseExternalId(externalIdSent as string, "maintenance.externalId");
      const next = { ...current, ...changes };
      throwViolations(maintenanceViolations(next), "maintenance");
      if (Object.keys(changes).length === 0 && externalId === undefined) return answer(current);
      const pages = await requireNamed(current.workspaceId, next);
      const before = await windows.componentsOf(current.workspaceId, current.pageComponentIds);
      const saved = await windows.update(current.id, changes, externalId);
      if (!saved) throw notFound(`maintenance window ${req.id}`);
      publish([...pages, ...before.values()]);
      return answer(saved);
    },

    async deleteMaintenanceWindow(req, ctx) {
      const current = await find(ctx, req.id);
      const pages = await windows.componentsOf(current.workspaceId, current.pageComponentIds);
      if (!(await windows.delete(current.id))) throw notFound(`maintenance window ${req.id}`);
      publish([...pages.values()]);
      return { success: true };
    },
  };
}
