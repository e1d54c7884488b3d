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
  parseId,
  throwViolations,
} from "@vigil/domain";
import { StatusPageComponentGroupSchema, StatusPageComponentSchema, type StatusPageService } from "@vigil/proto/status-page";
import { actorOf } from "../auth/context";
import { notFound } from "../errors";
import type { Changes } from "../changes/changes";
import type { FindPage } from "./ids";
import type { ComponentWrite, GroupWrite, PageChildren, StatusPageRepository } from "./repository";

type Methods<K extends keyof ServiceImpl<typeof StatusPageService>> = Pick<ServiceImpl<typeof StatusPageService>, K>;

/** An update may repeat a field that cannot change, but not give it another value. */
function requireUnchanged(field: string, sent: unknown, stored: string): void {
  if (sent !== undefined && sent !== stored) {
    throw ValidationError.of(field, `cannot change (it is ${stored || "empty"}): delete this one and create another`);
  }
}

/**
 * What the API does alike for a page's components and groups: each is found on a page of the
 * caller's workspace, and every write tells the public pages that the page changed.
 */
function childrenOf<View extends { pageId: string }, Write>(children: PageChildren<View, Write>, noun: string, findPage: FindPage, pageChanges: Changes) {
  const gone = (pageId: string, id: string) => notFound(`${noun} ${id} of status page ${pageId}`);
  const changed = (view: View) => {
    pageChanges.publish(view.pageId);
    return view;
  };
  return {
    async find(ctx: HandlerContext, pageId: string, id: string): Promise<View> {
      const page = await findPage(ctx, pageId, "pageId");
      const found = await children.find(page.id, parseId(id));
      if (!found) throw gone(pageId, id);
      return found;
    },
    create: async (pageId: string, write: Write) => changed(await children.create(pageId, write)),
    async list(ctx: HandlerContext, req: { pageId: string; limit?: number; offset?: number }) {
      const list = parsePage({ limit: req.limit, offset: req.offset });
      const page = await findPage(ctx, req.pageId, "pageId");
      return children.list(page.id, list.limit, list.offset);
    },
    /** Writes the changes to `current` (found for `req`); nothing to write leaves it as it is. */
    async update(req: { pageId: string; id: string }, current: View & { id: string }, write: Partial<Write>): Promise<View> {
      if (Object.keys(write).length === 0) return current;
      const saved = await children.update(current.pageId, current.id, write);
      if (!saved) throw gone(req.pageId, req.id);
      return changed(saved);
    },
    async delete(ctx: HandlerContext, req: { pageId: string; id: string }) {
      const page = await findPage(ctx, req.pageId, "pageId");
      if (!(await children.delete(page.id, parseId(req.id)))) throw gone(req.pageId, req.id);
      pageChanges.publish(page.id);
      return { success: true };
    },
  };
}

export function componentMethods(
  repo: StatusPageRepository,
  findPage: FindPage,
  pageChanges: Changes,
): Methods<
  "createStatusPageComponent" | "getStatusPageComponent" | "listStatusPageComponents" | "updateStatusPageComponent" | "deleteStatusPageComponent"
> {
  const components = childrenOf(repo.components, "component", findPage, pageChanges);

  async function requireReferences(ctx: HandlerContext, pageId: string, refs: Partial<Pick<ComponentFields, "monitorId" | "groupId">>): Promise<void> {
    const { monitorId, groupId } = refs;
    const [hasMonitor, hasGroup] = await Promise.all([
      monitorId ? repo.monitorInWorkspace(actorOf(ctx).workspace.id, monitorId) : false,
      groupId ? repo.groups.find(pageId, groupId).then(Boolean) : false,
    ]);
    throwViolations(componentReferenceViolations(refs, { monitor: () => hasMonitor, group: () => hasGroup }), "component");
  }

  return {
    async createStatusPageComponent(req, ctx) {
      if (!req.component) throw ValidationError.of("component", "is required");
      const page = await findPage(ctx, req.component.pageId, "component.pageId");
      const fields = parseComponent(componentInputFromMessage(req.component));
      const externalId = parseExternalId(req.component.externalId, "component.externalId");
      await requireReferences(ctx, page.id, fields);
      return { component: componentToMessage(await components.create(page.id, { ...fields, externalId })) };
    },

    async getStatusPageComponent(req, ctx) {
      return { component: componentToMessage(await components.find(ctx, req.pageId, req.id)) };
    },

    async listStatusPageComponents(req, ctx) {
      const { records, total } = await components.list(ctx, req);
      return { components: records.map(componentToMessage), totalSize: total };
    },

    async updateStatusPageComponent(req, ctx) {
      const current = await components.find(ctx, req.pageId, req.id);
      const { pageId, type, externalId, ...raw } = componentChanges(req.component ?? create(StatusPageComponentSchema), req.updateMask);
      requireUnchanged("component.pageId", pageId, current.pageId);
      requireUnchanged("component.type", type, current.type);
      const write: Partial<ComponentWrite> = {
        ...parseComponentChanges(raw as Record<Exclude<keyof ComponentFields, "type">, unknown>),
        ...(externalId === undefined ? {} : { externalId: parseExternalId(externalId as string, "component.externalId") }),
      };
      if (write.monitorId !== undefined) checkComponentMonitor({ type: current.type, monitorId: write.monitorId });
      await requireReferences(ctx, current.pageId, write);
      return { component: componentToMessage(await components.update(req, current, write)) };
    },

    deleteStatusPageComponent: (req, ctx) => components.delete(ctx, req),
  };
}

export function groupMethods(
  repo: StatusPageRepository,
  findPage: FindPage,
  pageChanges: Changes,
): Methods<
  | "createStatusPageComponentGroup"
  | "getStatusPageComponentGroup"
  | "listStatusPageComponentGroups"
  | "updateStatusPageComponentGroup"
  | "deleteStatusPageComponentGroup"
> {
  const groups = childrenOf(repo.groups, "component group", findPage, pageChanges);

  return {
    async createStatusPageComponentGroup(req, ctx) {
      if (!req.group) throw ValidationError.of("group", "is required");
      const page = await findPage(ctx, req.group.pageId, "group.pageId");
      const name = parseGroupName(req.group.name);
      return { group: groupToMessage(await groups.create(page.id, { name, externalId: parseExternalId(req.group.externalId, "group.externalId") })) };
    },

    async getStatusPageComponentGroup(req, ctx) {
      return { group: groupToMessage(await groups.find(ctx, req.pageId, req.id)) };
    },

    async listStatusPageComponentGroups(req, ctx) {
      const { records, total } = await groups.list(ctx, req);
      return { groups: records.map(groupToMessage), totalSize: total };
    },

    async updateStatusPageComponentGroup(req, ctx) {
      const current = await groups.find(ctx, req.pageId, req.id);
      const { pageId, name, externalId } = groupChanges(req.group ?? create(StatusPageComponentGroupSchema), req.updateMask);
      requireUnchanged("group.pageId", pageId, current.pageId);
      const write: Partial<GroupWrite> = {
        ...(name === undefined ? {} : { name: parseGroupName(name) }),
        ...(externalId === undefined ? {} : { externalId: parseExternalId(externalId as string, "group.externalId") }),
      };
      return { group: groupToMessage(await groups.update(req, current, write)) };
    },

    deleteStatusPageComponentGroup: (req, ctx) => groups.delete(ctx, req),
  };
}
