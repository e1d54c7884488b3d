import type { VigilClient } from "@vigil/client";
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
  pages.addCommand(addIncidentCommands(new Command("incidents").description("incidents written on a status page, their updates and postmortems")));
  pages.addCommand(addSubscriberCommands(new Command("subscribers").description("who is told of a status page's incidents: list, export as CSV, remove")));
  return pages;
}
