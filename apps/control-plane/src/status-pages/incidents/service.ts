import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  ValidationError,
  checkUpdateCount,
  incidentNoticeKind,
  incidentChanges,
  incidentInputFromMessage,
  incidentToMessage,
  incidentViolations,
  parseId,
  parseIncident,
  parseIncidentChanges,
  parseIncidentUpdate,
  parsePage,
  throwViolations,
  type AffectedComponent,
  type IncidentView,
} from "@vigil/domain";
import { StatusPageIncidentSchema, type StatusPageService } from "@vigil/proto/status-page";
import { actorOf } from "../../auth/context";
import type { Changes } from "../../changes/changes";
import { notFound } from "../../errors";
import type { FindPage } from "../ids";
import type { AlsoWrite, StatusPageIncidentRepository } from "./repository";
import type { SubscriberNoticeSink, WrittenNotice } from "../subscribers/notices";

type Methods<K extends keyof ServiceImpl<typeof StatusPageService>> = Pick<ServiceImpl<typeof StatusPageService>, K>;

/**
 * The incidents people write on a page. Every write tells the public pages
 * that the page changed (their cache, summary.json and feed follow at once);
 * a new incident and each update of one the page shows tell its subscribers
 * (`notices`: written with the incident, queued once it is stored). `clock`
 * is the time updates are stamped with.
 */
export function incidentMethods(
  incidents: StatusPageIncidentRepository,
  findPage: FindPage,
  pageChanges: Changes,
  notices: SubscriberNoticeSink | null = null,
  clock: () => Date = () => new Date(),
): Methods<
  | "createStatusPageIncident"
  | "addStatusPageIncidentUpdate"
  | "listStatusPageIncidents"
  | "getStatusPageIncident"
  | "updateStatusPageIncident"
  | "deleteStatusPageIncident"
> {
  const workspaceOf = (ctx: HandlerContext) => actorOf(ctx).workspace.id;

  const find = async (ctx: HandlerContext, id: string, field = "id") => {
    const incident = await incidents.find(workspaceOf(ctx), parseId(id, field));
    if (!incident) throw notFound(`status page incident ${id}`);
    return incident;
  };

  const changed = (incident: IncidentView) => {
    pageChanges.publish(incident.pageId);
    return { incident: incidentToMessage(incident) };
  };

  /**
   * Writes `save` and, in its transaction, the notice to the page's subscribers of an incident the page shows (not
   * of one kept internal); then queues the notice. The answer does not wait for the sending.
   */
  const savedTelling = async <T>(opened: boolean, save: (also: AlsoWrite) => Promise<T>): Promise<T> => {
    if (!notices) return save(async () => {});
    let written: WrittenNotice | null = null;
    const saved = await save(async (tx, incident) => {
      if (incident.internal) return;
      written = await notices.write(tx, incident.pageId, {
        kind: incidentNoticeKind(opened, incident.status),
        subjectId: incident.id,
        incidentId: incident.id,
        title: incident.title,
        message: incident.updates[0]?.message ?? "",
        status: incident.status,
        componentIds: incident.components.map((c) => c.componentId),
      });
    });
    void notices.queue([written]);
    return saved;
  };

  /** Every component named is one of the page's. */
  async function requireComponents(pageId: string, components: readonly AffectedComponent[]): Promise<void> {
    const found = await incidents.componentsOfPage(pageId, components.map((c) => c.componentId));
    throwViolations(
      components.flatMap((c, i) => (found.has(c.componentId) ? [] : [{ field: `components[${i}].componentId`, rule: `no component ${c.componentId} on this page` }])),
      "incident",
    );
  }

  return {
    async createStatusPageIncident(req, ctx) {
      if (!req.incident) throw ValidationError.of("incident", "is required");
      const page = await findPage(ctx, req.incident.pageId, "incident.pageId");
      const fields = parseIncident(incidentInputFromMessage(req.incident));
      await requireComponents(page.id, fields.components);
      if (fields.monitorIncidentId && !(await incidents.monitorIncidentOnPage(workspaceOf(ctx), page.id, fields.monitorIncidentId))) {
        throw ValidationError.of("incident.monitorIncidentId", `no incident ${fields.monitorIncidentId} of a monitor shown on this page`);
      }
      const created = await savedTelling(true, (also) => incidents.create(page.id, fields, clock(), also));
      return changed(created);
    },

    async addStatusPageIncidentUpdate(req, ctx) {
      const current = await find(ctx, req.incidentId, "incidentId");
      const update = parseIncidentUpdate({ status: req.status, message: req.message });
      if (incidentViolations({ ...current, monitorIncidentId: current.monitorIncidentId ?? "", status: update.status }).some((v) => v.field === "postmortem")) {
        throw ValidationError.of("status", "must be resolved while the incident has a postmortem (clear the postmortem to reopen it)");
      }
      const saved = await savedTelling(false, (also) => incidents.addUpdate(current.id, update, clock(), checkUpdateCount, also));
      if (!saved) throw notFound(`status page incident ${req.incidentId}`);
      return changed(saved);
    },

    async listStatusPageIncidents(req, ctx) {
      const list = parsePage({ limit: req.limit, offset: req.offset });
      const page = await findPage(ctx, req.pageId, "pageId");
      const { records, total } = await incidents.list(page.id, list.limit, list.offset);
      return { incidents: records.map(incidentToMessage), totalSize: total };
    },

    async getStatusPageIncident(req, ctx) {
      return { incident: incidentToMessage(await find(ctx, req.id)) };
    },

    async updateStatusPageIncident(req, ctx) {
      const current = await find(ctx, req.id);
      const { pageId, monitorIncidentId, ...raw } = incidentChanges(req.incident ?? create(StatusPageIncidentSchema), req.updateMask);
      if (pageId !== undefined && pageId !== current.pageId) throw ValidationError.of("incident.pageId", "cannot change");
      if (monitorIncidentId !== undefined && monitorIncidentId !== (current.monitorIncidentId ?? "")) {
        throw ValidationError.of("incident.monitorIncidentId", "cannot change: delete this incident and create another");
      }
      const { postmortem, ...others } = parseIncidentChanges(raw);
      // A postmortem sent again unchanged is not written again: its date is when its words last changed.
      const changes = postmortem === undefined || postmortem === current.postmortem ? others : { ...others, postmortem };
      throwViolations(incidentViolations({ ...current, monitorIncidentId: current.monitorIncidentId ?? "", ...changes }), "incident");
      if (changes.components) await requireComponents(current.pageId, changes.components);
      if (Object.keys(changes).length === 0) return { incident: incidentToMessage(current) };
      const saved = await incidents.update(current.id, changes, clock());
      if (!saved) throw notFound(`status page incident ${req.id}`);
      return changed(saved);
    },

    async deleteStatusPageIncident(req, ctx) {
      const current = await find(ctx, req.id);
      if (!(await incidents.delete(current.id))) throw notFound(`status page incident ${req.id}`);
      pageChanges.publish(current.pageId);
      return { success: true };
    },
  };
}
