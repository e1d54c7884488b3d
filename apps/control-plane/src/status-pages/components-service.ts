import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  ValidationError,
  checkComponentMonitor,
  componentReferenceViolations,
  componentChanges,
  componentInputFromMessage,
  componentToMessage,
  groupChanges,
  groupToMessage,
  parseComponent,
  parseComponentChanges,
  parseExternalId,
  parseGroupName,
  parsePage,
  type ComponentFields,
  type ComponentView,
  parseId,
  throwViolations,
} from "@vigil/domain";
import { StatusPageComponentGroupSchema, StatusPageComponentSchema, type StatusPageService } from "@vigil/proto/status-page";
import { actorOf } from "../auth/context";
import { notFound } from "../errors";
import type { PageChanges } from "./changes";
import type { FindPage } from "./ids";
import type { ComponentWrite, GroupWrite, StatusPageRepository } from "./repository";

type Methods<K extends keyof ServiceImpl<typeof StatusPageService>> = Pick<ServiceImpl<typeof StatusPageService>, K>;

/** An update may repeat a field that cannot change, but not give it another value. */
function requireUnchanged(field: string, sent: unknown, stored: string): void {
  if (sent !== undefined && sent !== stored) {
    throw ValidationError.of(field, `cannot change (it is ${stored || "empty"}): delete this one and create another`);
  }
}

export function componentMethods(
  repo: StatusPageRepository,
  findPage: FindPage,
  pageChanges: PageChanges,
): Methods<
  "createStatusPageComponent" | "getStatusPageComponent" | "listStatusPageComponents" | "updateStatusPageComponent" | "deleteStatusPageComponent"
> {
  async function findComponent(ctx: HandlerContext, pageId: string, id: string): Promise<ComponentView> {
    const page = await findPage(ctx, pageId, "pageId");
    const component = await repo.findComponent(page.id, parseId(id));
    if (!component) throw notFound(`component ${id} of status page ${pageId}`);
    return component;
  }

  async function requireReferences(ctx: HandlerContext, pageId: string, refs: Partial<Pick<ComponentFields, "monitorId" | "groupId">>): Promise<void> {
    const { monitorId, groupId } = refs;
    const [hasMonitor, hasGroup] = await Promise.all([
      monitorId ? repo.monitorInWorkspace(actorOf(ctx).workspace.id, monitorId) : false,
      groupId ? repo.findGroup(pageId, groupId).then(Boolean) : false,
    ]);
    throwViolations(componentReferenceViolations(refs, { monitor: () => hasMonitor, group: () => hasGroup }), "component");
  }

  /** Answers a component after a write, telling the public pages its page changed. */
  const changed = (component: ComponentView) => {
    pageChanges.publish(component.pageId);
    return { component: componentToMessage(component) };
  };

  return {
    async createStatusPageComponent(req, ctx) {
      if (!req.component) throw ValidationError.of("component", "is required");
      const page = await findPage(ctx, req.component.pageId, "component.pageId");
      const fields = parseComponent(componentInputFromMessage(req.component));
      const externalId = parseExternalId(req.component.externalId, "component.externalId");
      await requireReferences(ctx, page.id, fields);
      return changed(await repo.createComponent(page.id, { ...fields, externalId }));
    },

    async getStatusPageComponent(req, ctx) {
      return { component: componentToMessage(await findComponent(ctx, req.pageId, req.id)) };
    },

    async listStatusPageComponents(req, ctx) {
      const list = parsePage({ limit: req.limit, offset: req.offset });
      const page = await findPage(ctx, req.pageId, "pageId");
      const { records, total } = await repo.listComponents(page.id, list.limit, list.offset);
      return { components: records.map(componentToMessage), totalSize: total };
    },

    async updateStatusPageComponent(req, ctx) {
      const current = await findComponent(ctx, req.pageId, req.id);
      const { pageId, type, externalId, ...raw } = componentChanges(req.component ?? create(StatusPageComponentSchema), req.updateMask);
      requireUnchanged("component.pageId", pageId, current.pageId);
      requireUnchanged("component.type", type, current.type);
      const write: Partial<ComponentWrite> = {
        ...parseComponentChanges(raw as Record<Exclude<keyof ComponentFields, "type">, unknown>),
        ...(externalId === undefined ? {} : { externalId: parseExternalId(externalId as string, "component.externalId") }),
      };
      if (write.monitorId !== undefined) checkComponentMonitor({ type: current.type, monitorId: write.monitorId });
      await requireReferences(ctx, current.pageId, write);
      if (Object.keys(write).length === 0) return { component: componentToMessage(current) };
      const saved = await repo.updateComponent(current.pageId, current.id, write);
      if (!saved) throw notFound(`component ${req.id} of status page ${req.pageId}`);
      return changed(saved);
    },

    async deleteStatusPageComponent(req, ctx) {
      const page = await findPage(ctx, req.pageId, "pageId");
      if (!(await repo.deleteComponent(page.id, parseId(req.id)))) throw notFound(`component ${req.id} of status page ${req.pageId}`);
      pageChanges.publish(page.id);
      return { success: true };
    },
  };
}

export function groupMethods(
  repo: StatusPageRepository,
  findPage: FindPage,
  pageChanges: PageChanges,
): Methods<
  | "createStatusPageComponentGroup"
  | "getStatusPageComponentGroup"
  | "listStatusPageComponentGroups"
  | "updateStatusPageComponentGroup"
  | "deleteStatusPageComponentGroup"
> {
  async function findGroup(ctx: HandlerContext, pageId: string, id: string) {
    const page = await findPage(ctx, pageId, "pageId");
    const group = await repo.findGroup(page.id, parseId(id));
    if (!group) throw notFound(`component group ${id} of status page ${pageId}`);
    return group;
  }

  return {
    async createStatusPageComponentGroup(req, ctx) {
      if (!req.group) throw ValidationError.of("group", "is required");
      const page = await findPage(ctx, req.group.pageId, "group.pageId");
      const name = parseGroupName(req.group.name);
      const group = await repo.createGroup(page.id, { name, externalId: parseExternalId(req.group.externalId, "group.externalId") });
      pageChanges.publish(page.id);
      return { group: groupToMessage(group) };
    },

    async getStatusPageComponentGroup(req, ctx) {
      return { group: groupToMessage(await findGroup(ctx, req.pageId, req.id)) };
    },

    async listStatusPageComponentGroups(req, ctx) {
      const list = parsePage({ limit: req.limit, offset: req.offset });
      const page = await findPage(ctx, req.pageId, "pageId");
      const { records, total } = await repo.listGroups(page.id, list.limit, list.offset);
      return { groups: records.map(groupToMessage), totalSize: total };
    },

    async updateStatusPageComponentGroup(req, ctx) {
      const current = await findGroup(ctx, req.pageId, req.id);
      const { pageId, name, externalId } = groupChanges(req.group ?? create(StatusPageComponentGroupSchema), req.updateMask);
      requireUnchanged("group.pageId", pageId, current.pageId);
      const write: Partial<GroupWrite> = {
        ...(name === undefined ? {} : { name: parseGroupName(name) }),
        ...(externalId === undefined ? {} : { externalId: parseExternalId(externalId as string, "group.externalId") }),
      };
      if (Object.keys(write).length === 0) return { group: groupToMessage(current) };
      const saved = await repo.updateGroup(current.pageId, current.id, write);
      if (!saved) throw notFound(`component group ${req.id} of status page ${req.pageId}`);
      pageChanges.publish(saved.pageId);
      return { group: groupToMessage(saved) };
    },

    async deleteStatusPageComponentGroup(req, ctx) {
      const page = await findPage(ctx, req.pageId, "pageId");
      if (!(await repo.deleteGroup(page.id, parseId(req.id)))) throw notFound(`component group ${req.id} of status page ${req.pageId}`);
      pageChanges.publish(page.id);
      return { success: true };
    },
  };
}
