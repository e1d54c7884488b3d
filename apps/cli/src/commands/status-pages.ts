import type { DescMessage } from "@bufbuild/protobuf";
import {
  StatusPageComponentGroupSchema,
  StatusPageComponentSchema,
  StatusPageSchema,
  StatusPageService,
  type StatusPage,
  type StatusPageComponent,
  type StatusPageComponentGroup,
} from "@vigil/proto/status-page";
import { ACCESS_TYPES, COMPONENT_TYPES } from "@vigil/domain";
import { Command } from "commander";
import { action, send, type Context } from "../context.js";
import { updateMaskOf, bodyOf, fields, withFields, withPaging, type FieldFlag } from "../fields.js";
import { messageDetails, table } from "../output.js";

const M = StatusPageService.method;

const pageFields = (): FieldFlag[] => [
  fields.text("--title <title>", "title", "title shown on the page"),
  fields.text("--slug <slug>", "slug", "short name in the page's address"),
  fields.text("--description <text>", "description", "text under the title"),
  fields.text("--homepage-url <url>", "homepageUrl", "link to your site"),
  fields.text("--contact-url <url>", "contactUrl", "link to reach you"),
  fields.text("--icon <url>", "icon", "icon URL"),
  fields.text("--custom-domain <domain>", "customDomain", "your own domain for the page"),
  fields.text("--access-type <type>", "accessType", `who may see it: ${ACCESS_TYPES.join(", ")}`),
  fields.text("--password <password>", "password", "password of a password-protected page"),
  fields.texts("--auth-email-domain <domain>", "authEmailDomains", "an email domain allowed in"),
];

const componentFields = (): FieldFlag[] => [
  fields.text("--type <type>", "type", `what it shows: ${COMPONENT_TYPES.join(", ")}`),
  fields.text("--monitor <id>", "monitorId", "the monitor a monitor component shows"),
  fields.text("--name <name>", "name", "display name"),
  fields.text("--description <text>", "description", "a note shown with it"),
  fields.integer("--order <n>", "order", "position on the page"),
  fields.text("--group <id>", "groupId", "the group it belongs to"),
  fields.integer("--group-order <n>", "groupOrder", "position in its group"),
];

const groupFields = (): FieldFlag[] => [fields.text("--name <name>", "name", "display name")];

const objectDetails = (ctx: Context, schema: DescMessage, value: object | undefined) => messageDetails(ctx.out.colors, schema, value as never);
const pageRow = (p: StatusPage) => [p.id, p.title ?? "", p.slug ?? "", String(p.published), p.accessType ?? "", p.customDomain ?? ""];

function idCommand(parent: Command, name: string, description: string, pageChild: boolean): Command {
  const command = parent.command(name).description(description);
  if (pageChild) command.argument("<page-id>", "status page id");
  return command.argument("<id>", pageChild ? "its id" : "status page id");
}

/** `status-pages components …`: the parts of a page, each showing a monitor or a fixed text. */
function componentsCommand(): Command {
  const components = new Command("components").description("components of a status page");
  const render = (ctx: Context, c: StatusPageComponent | undefined) => objectDetails(ctx, StatusPageComponentSchema, c);

  withPaging(components.command("list").description("list a page's components").argument("<page-id>", "status page id")).action(
    action(async (ctx, pageId: string, options: object) => {
      await send(ctx, M.listStatusPageComponents, ctx.client.statusPages.listStatusPageComponents, { pageId, ...options }, (r) =>
        table(
          ctx.out.colors,
          ["ID", "TYPE", "NAME", "MONITOR", "GROUP", "ORDER"],
          r.components.map((c) => [c.id, c.type, c.name ?? "", c.monitorId ?? "", c.groupId ?? "", String(c.order ?? "")]),
        ),
      );
    }),
  );
  idCommand(components, "get", "show one component", true).action(
    action(async (ctx, pageId: string, id: string) => {
      await send(ctx, M.getStatusPageComponent, ctx.client.statusPages.getStatusPageComponent, { pageId, id }, (r) => render(ctx, r.component));
    }),
  );
  const createFlags = componentFields();
  withFields(components.command("create").description("add a component to a page").argument("<page-id>", "status page id"), createFlags).action(
    action(async (ctx, pageId: string, options: Record<string, unknown>) => {
      const component = { ...(await bodyOf(createFlags, options)), pageId };
      await send(ctx, M.createStatusPageComponent, ctx.client.statusPages.createStatusPageComponent, { component }, (r) => render(ctx, r.component));
    }),
  );
  const updateFlags = componentFields();
  withFields(idCommand(components, "update", "change fields of a component", true), updateFlags, true).action(
    action(async (ctx, pageId: string, id: string, options: Record<string, unknown>) => {
      const body = await bodyOf(updateFlags, options);
      const request = { pageId, id, component: body, updateMask: updateMaskOf(body, options.clear) };
      await send(ctx, M.updateStatusPageComponent, ctx.client.statusPages.updateStatusPageComponent, request, (r) => render(ctx, r.component));
    }),
  );
  idCommand(components, "delete", "remove a component from its page", true).action(
    action(async (ctx, pageId: string, id: string) => {
      await send(ctx, M.deleteStatusPageComponent, ctx.client.statusPages.deleteStatusPageComponent, { pageId, id }, () => `deleted component ${id}`);
    }),
  );
  return components;
}

/** `status-pages groups …`: named groups that components are gathered in. */
function groupsCommand(): Command {
  const groups = new Command("groups").description("component groups of a status page");
  const render = (ctx: Context, g: StatusPageComponentGroup | undefined) => objectDetails(ctx, StatusPageComponentGroupSchema, g);

  withPaging(groups.command("list").description("list a page's component groups").argument("<page-id>", "status page id")).action(
    action(async (ctx, pageId: string, options: object) => {
      await send(ctx, M.listStatusPageComponentGroups, ctx.client.statusPages.listStatusPageComponentGroups, { pageId, ...options }, (r) =>
        table(ctx.out.colors, ["ID", "NAME"], r.groups.map((g) => [g.id, g.name ?? ""])),
      );
    }),
  );
  idCommand(groups, "get", "show one group", true).action(
    action(async (ctx, pageId: string, id: string) => {
      await send(ctx, M.getStatusPageComponentGroup, ctx.client.statusPages.getStatusPageComponentGroup, { pageId, id }, (r) => render(ctx, r.group));
    }),
  );
  const createFlags = groupFields();
  withFields(groups.command("create").description("add a component group to a page").argument("<page-id>", "status page id"), createFlags).action(
    action(async (ctx, pageId: string, options: Record<string, unknown>) => {
      const group = { ...(await bodyOf(createFlags, options)), pageId };
      await send(ctx, M.createStatusPageComponentGroup, ctx.client.statusPages.createStatusPageComponentGroup, { group }, (r) => render(ctx, r.group));
    }),
  );
  const updateFlags = groupFields();
  withFields(idCommand(groups, "update", "change fields of a group", true), updateFlags, true).action(
    action(async (ctx, pageId: string, id: string, options: Record<string, unknown>) => {
      const body = await bodyOf(updateFlags, options);
      const request = { pageId, id, group: body, updateMask: updateMaskOf(body, options.clear) };
      await send(ctx, M.updateStatusPageComponentGroup, ctx.client.statusPages.updateStatusPageComponentGroup, request, (r) => render(ctx, r.group));
    }),
  );
  idCommand(groups, "delete", "remove a group from its page", true).action(
    action(async (ctx, pageId: string, id: string) => {
      await send(ctx, M.deleteStatusPageComponentGroup, ctx.client.statusPages.deleteStatusPageComponentGroup, { pageId, id }, () => `deleted group ${id}`);
    }),
  );
  return groups;
}

export function statusPagesCommand(): Command {
  const pages = new Command("status-pages").description("public status pages, their components and groups");
  const render = (ctx: Context, p: StatusPage | undefined) => objectDetails(ctx, StatusPageSchema, p);

  withPaging(pages.command("list").description("list status pages")).action(
    action(async (ctx, options: object) => {
      await send(ctx, M.listStatusPages, ctx.client.statusPages.listStatusPages, { ...options }, (r) =>
        table(ctx.out.colors, ["ID", "TITLE", "SLUG", "PUBLISHED", "ACCESS", "DOMAIN"], r.statusPages.map(pageRow)),
      );
    }),
  );
  idCommand(pages, "get", "show one status page", false).action(
    action(async (ctx, id: string) => {
      await send(ctx, M.getStatusPage, ctx.client.statusPages.getStatusPage, { id }, (r) => render(ctx, r.statusPage));
    }),
  );
  const createFlags = pageFields();
  withFields(pages.command("create").description("create a status page (unpublished until `publish`)"), createFlags).action(
    action(async (ctx, options: Record<string, unknown>) => {
      await send(ctx, M.createStatusPage, ctx.client.statusPages.createStatusPage, { statusPage: await bodyOf(createFlags, options) }, (r) => render(ctx, r.statusPage));
    }),
  );
  const updateFlags = pageFields();
  withFields(idCommand(pages, "update", "change fields of a status page", false), updateFlags, true).action(
    action(async (ctx, id: string, options: Record<string, unknown>) => {
      const body = await bodyOf(updateFlags, options);
      const request = { id, statusPage: body, updateMask: updateMaskOf(body, options.clear) };
      await send(ctx, M.updateStatusPage, ctx.client.statusPages.updateStatusPage, request, (r) => render(ctx, r.statusPage));
    }),
  );
  idCommand(pages, "delete", "delete a status page", false).action(
    action(async (ctx, id: string) => {
      await send(ctx, M.deleteStatusPage, ctx.client.statusPages.deleteStatusPage, { id }, () => `deleted status page ${id}`);
    }),
  );
  idCommand(pages, "publish", "make a status page visible", false).action(
    action(async (ctx, id: string) => {
      await send(ctx, M.publishStatusPage, ctx.client.statusPages.publishStatusPage, { id }, (r) => render(ctx, r.statusPage));
    }),
  );
  idCommand(pages, "unpublish", "hide a status page again", false).action(
    action(async (ctx, id: string) => {
      await send(ctx, M.unpublishStatusPage, ctx.client.statusPages.unpublishStatusPage, { id }, (r) => render(ctx, r.statusPage));
    }),
  );
  pages.addCommand(componentsCommand());
  pages.addCommand(groupsCommand());
  return pages;
}
