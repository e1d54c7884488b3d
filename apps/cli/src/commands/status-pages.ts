import type { VigilClient } from "@vigil/client";
import {
  StatusPageComponentGroupSchema,
  StatusPageComponentSchema,
  StatusPageSchema,
  StatusPageService,
  type StatusPage,
  type StatusPageComponent,
  type StatusPageComponentGroup,
  type GetStatusPageReportResponse,
} from "@vigil/proto/status-page";
import { stringify as stringifyCsv } from "csv-stringify/sync";
import { action, send, type Context } from "../context.js";
import { table } from "../output.js";
import { ACCESS_TYPES, COMPONENT_TYPES, PAGE_LANGUAGES } from "@vigil/domain";
import { Command } from "commander";
import { fields, type FieldFlag } from "../fields.js";
import { addCommands, type Resource } from "../resource.js";
import { addIncidentCommands } from "./status-page-incidents.js";
import { addSubscriberCommands } from "./status-page-subscribers.js";

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
  fields.text("--language <code>", "language", `the page's language unless a visitor asks for another: ${PAGE_LANGUAGES.join(", ")}`),
  ...fields.toggle("subscriptions", "subscriptionsEnabled", "let visitors subscribe to the page (on unless turned off)"),
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

const pageRow = (p: StatusPage) => [p.id, p.title ?? "", p.slug ?? "", String(p.published), p.accessType ?? "", p.customDomain ?? ""];

const ofPages = { service: StatusPageService, client: (client: VigilClient) => client.statusPages };

/** `status-pages components …`: the parts of a page, each showing a monitor or a fixed text. */
const COMPONENTS: Resource = {
  ...ofPages,
  schema: StatusPageComponentSchema,
  noun: "component",
  field: "component",
  child: true,
  fields: componentFields,
  commands: {
    list: "list a page's components",
    get: "show one component",
    create: "add a component to a page",
    update: "change fields of a component",
    delete: "remove a component from its page",
  },
  list: {
    items: "components",
    headers: ["ID", "TYPE", "NAME", "MONITOR", "GROUP", "ORDER"],
    row: (c: StatusPageComponent) => [c.id, c.type, c.name ?? "", c.monitorId ?? "", c.groupId ?? "", String(c.order ?? "")],
  },
};

/** `status-pages groups …`: named groups that components are gathered in. */
const GROUPS: Resource = {
  ...ofPages,
  schema: StatusPageComponentGroupSchema,
  noun: "group",
  field: "group",
  child: true,
  fields: groupFields,
  commands: {
    list: "list a page's component groups",
    get: "show one group",
    create: "add a component group to a page",
    update: "change fields of a group",
    delete: "remove a group from its page",
  },
  list: { items: "groups", headers: ["ID", "NAME"], row: (g: StatusPageComponentGroup) => [g.id, g.name ?? ""] },
};

const PAGES: Resource = {
  ...ofPages,
  schema: StatusPageSchema,
  noun: "status page",
  field: "statusPage",
  fields: pageFields,
  commands: {
    list: "list status pages",
    get: "show one status page",
    create: "create a status page (unpublished until `publish`)",
    update: "change fields of a status page",
    delete: "delete a status page",
    publish: "make a status page visible",
    unpublish: "hide a status page again",
  },
  list: { items: "statusPages", headers: ["ID", "TITLE", "SLUG", "PUBLISHED", "ACCESS", "DOMAIN"], row: pageRow },
};

export function statusPagesCommand(): Command {
  const pages = addCommands(new Command("status-pages").description("public status pages, their components, groups and incidents"), PAGES);
  pages.addCommand(addCommands(new Command("components").description("components of a status page"), COMPONENTS));
  pages.addCommand(addCommands(new Command("groups").description("component groups of a status page"), GROUPS));
  pages
    .command("report")
    .description("a month's availability and downtime of the page and of each monitor component")
    .argument("<id>", "status page id")
    .requiredOption("--month <YYYY-MM>", "the UTC month, e.g. 2026-11")
    .option("--csv", "as CSV: one row for the page, then one per monitor component")
    .action(
      action(async (ctx: Context, id: string, options: { month: string; csv?: boolean }) => {
        const request = { id, month: options.month };
        if (options.csv) ctx.out.write(pageReportCsv(await ctx.client.statusPages.getStatusPageReport(request)));
        else await send(ctx, StatusPageService.method.getStatusPageReport, ctx.client.statusPages.getStatusPageReport, request, (r) => pageReportTable(ctx, r));
      }),
    );
  pages.addCommand(addIncidentCommands(new Command("incidents").description("incidents written on a status page, their updates and postmortems")));
  pages.addCommand(addSubscriberCommands(new Command("subscribers").description("who is told of a status page's incidents: list, export as CSV, remove")));
  return pages;
}

const availability = (value: number | undefined) => (value === undefined ? "" : value.toFixed(3));

/** The page's row, then each monitor component's: what a report says, in the order of the page. */
function pageReportRows(r: GetStatusPageReportResponse): string[][] {
  const total = r.components.reduce((sum, c) => ({ s: sum.s + c.successful, d: sum.d + c.degraded, f: sum.f + c.failed, i: sum.i + c.incidents }), { s: 0n, d: 0n, f: 0n, i: 0n });
  return [
    ["page", r.name, availability(r.availability), ...[total.s, total.d, total.f, r.downtimeSeconds, total.i].map(String)],
    ...r.components.map((c) => [c.componentId, c.name, availability(c.availability), ...[c.successful, c.degraded, c.failed, c.downtimeSeconds, c.incidents].map(String)]),
  ];
}

const PAGE_REPORT_COLUMNS = ["component", "name", "availability_percent", "successful", "degraded", "failed", "downtime_seconds", "incidents"];

/** GetStatusPageReport as CSV (RFC 4180 through csv-stringify). */
function pageReportCsv(r: GetStatusPageReportResponse): string {
  return stringifyCsv([["month", ...PAGE_REPORT_COLUMNS], ...pageReportRows(r).map((row) => [r.month, ...row])]);
}

function pageReportTable(ctx: Context, r: GetStatusPageReportResponse): string {
  return `${r.name}, ${r.month}\n${table(ctx.out.colors, PAGE_REPORT_COLUMNS.map((c) => c.toUpperCase()), pageReportRows(r))}`;
}
