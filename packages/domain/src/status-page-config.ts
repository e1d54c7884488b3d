import { z } from "zod";
import { LIMITS } from "./limits";
import { boolean, httpUrl, integer, list, nonEmptyText, oneOf, readableLine, readableText, requiredLine, text } from "./rules";
import { domainName } from "./hosts";
import { ValidationError, parseOrThrow, throwViolations, type FieldViolation } from "./validation";

/** Who may read a page; `public` when a page does not say. */
export const ACCESS_TYPES = ["public", "password", "email-domain"] as const;
export type AccessType = (typeof ACCESS_TYPES)[number];
export const DEFAULT_ACCESS_TYPE: AccessType = "public";

export const COMPONENT_TYPES = ["monitor", "static"] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

/**
 * The languages a public page is written in: its own (`language`, English
 * when it says none) unless the visitor asks for another of these by `?lang=`
 * or Accept-Language (docs/status-pages.md "Languages").
 */
export const PAGE_LANGUAGES = ["en", "de", "fr", "es", "pt", "ja"] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];
export const DEFAULT_PAGE_LANGUAGE: PageLanguage = "en";
/** Each language by its own name, as a reader of it looks for it. */
export const PAGE_LANGUAGE_NAMES: Record<PageLanguage, string> = { en: "English", de: "Deutsch", fr: "Français", es: "Español", pt: "Português", ja: "日本語" };

/** A page's theme is read-only: it follows the visitor's light or dark preference. */
export const PAGE_THEME = "system";

/**
 * Slugs that name Vigil's own paths or read as official, refused so that no
 * page can pose as one of them (docs/status-pages.md).
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  "admin", "api", "app", "assets", "auth", "badge", "dashboard", "docs", "feed", "health", "healthz", "help", "login",
  "logout", "new", "settings", "sign-in", "sign-out", "signin", "signout", "static", "status", "summary", "support", "v1",
  "vigil", "www",
]);

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A host name as custom domains are stored and compared: lowercase, without a final dot. */
export const hostKey = (host: string) => host.toLowerCase().replace(/\.$/, "");

/**
 * The names a deployment answers to as itself: the host of PUBLIC_URL and
 * RESERVED_DOMAINS. No page may have one as its custom domain, where it would
 * own Vigil's own `/`, its companions and `/sign-in` (docs/status-pages.md).
 */
export function reservedDomainsOf(publicUrl: string, reservedDomains: readonly string[]): ReadonlySet<string> {
  return new Set([new URL(publicUrl).hostname, ...reservedDomains].map(hostKey));
}

/** A page's custom domain (as parsed, lowercase) is none of the deployment's reserved names. */
export function checkCustomDomain(customDomain: string, reserved: ReadonlySet<string>, prefix = "statusPage"): void {
  if (reserved.has(customDomain)) {
    throw ValidationError.of(`${prefix}.customDomain`, "is reserved by this Vigil deployment (the host of PUBLIC_URL or one of RESERVED_DOMAINS)");
  }
}

/** A page's fields as a create takes them, each rule on its own; access rules across fields are checkPageAccess's. */
/** Whether a page takes subscriptions when its owner says nothing (docs/status-pages.md "Subscribers"). */
export const DEFAULT_SUBSCRIPTIONS_ENABLED = true;

const pageFields = {
  title: requiredLine(LIMITS.nameMaxChars),
  slug: nonEmptyText(LIMITS.nameMaxChars)
    .regex(SLUG, "must be lowercase letters, digits and single hyphens, neither first nor last")
    .refine((slug) => !RESERVED_SLUGS.has(slug), "is a reserved word"),
  description: readableText(LIMITS.descriptionMaxChars),
  homepageUrl: z.union([z.literal(""), httpUrl(LIMITS.targetMaxChars)]),
  contactUrl: z.union([z.literal(""), httpUrl(LIMITS.targetMaxChars)]),
  icon: z.union([z.literal(""), httpUrl(LIMITS.targetMaxChars)]),
  // Host names compare without case; stored lowercase. (Transformed outside the union: zod reports a union of pipes as "Invalid input".)
  customDomain: z.union([z.literal(""), domainName(253)]).transform(hostKey),
  accessType: oneOf(ACCESS_TYPES),
  password: text(LIMITS.pagePasswordMaxChars),
  authEmailDomains: list(domainName(253).transform((domain) => domain.toLowerCase()), LIMITS.authEmailDomains),
  language: oneOf(PAGE_LANGUAGES),
  subscriptionsEnabled: boolean(),
};

export type PageFields = { [K in keyof typeof pageFields]: z.output<(typeof pageFields)[K]> };

/** A page's fields with their defaults, as a create takes them. */
export const statusPageSchema = z.object({
  title: pageFields.title,
  slug: pageFields.slug,
  description: pageFields.description.default(""),
  homepageUrl: pageFields.homepageUrl.default(""),
  contactUrl: pageFields.contactUrl.default(""),
  icon: pageFields.icon.default(""),
  customDomain: pageFields.customDomain.default(""),
  accessType: pageFields.accessType.default(DEFAULT_ACCESS_TYPE),
  password: pageFields.password.default(""),
  authEmailDomains: pageFields.authEmailDomains.default([]),
  language: pageFields.language.default(DEFAULT_PAGE_LANGUAGE),
  // On unless turned off: a visitor expects a status page to offer updates, as Statuspage's and openstatus' do.
  subscriptionsEnabled: pageFields.subscriptionsEnabled.default(DEFAULT_SUBSCRIPTIONS_ENABLED),
});

/** Validates a new page's fields (`statusPage.<field>` in violations); absent optional fields take their defaults. */
export function parseStatusPage(input: Partial<Record<keyof PageFields, unknown>>, prefix = "statusPage"): PageFields {
  return parseOrThrow(statusPageSchema, input, prefix);
}

/** Validates the fields an update changes, each by its own rule. */
export function parseStatusPageChanges<K extends keyof PageFields>(input: Pick<Record<keyof PageFields, unknown>, K>, prefix = "statusPage"): Pick<PageFields, K> {
  const shape = Object.fromEntries(Object.keys(input).map((key) => [key, pageFields[key as K]]));
  return parseOrThrow(z.object(shape), input, prefix) as Pick<PageFields, K>;
}

/**
 * The rules across a page's fields, on the page as it will be stored: a
 * password page needs a password (set now or kept from before), an
 * email-domain page at least one domain. Fields are named as in the page.
 */
export function pageAccessViolations(page: { accessType: AccessType; hasPassword: boolean; authEmailDomains: readonly string[] }): FieldViolation[] {
  if (page.accessType === "password" && !page.hasPassword) return [{ field: "password", rule: "is required when accessType is password" }];
  if (page.accessType === "email-domain" && page.authEmailDomains.length === 0) {
    return [{ field: "authEmailDomains", rule: "is required when accessType is email-domain" }];
  }
  return [];
}

/** pageAccessViolations, thrown. */
export function checkPageAccess(page: Parameters<typeof pageAccessViolations>[0], prefix = "statusPage"): void {
  throwViolations(pageAccessViolations(page), prefix);
}

const order = () => integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });

const componentFields = {
  type: oneOf(COMPONENT_TYPES),
  monitorId: text(LIMITS.idMaxChars),
  name: readableLine(LIMITS.nameMaxChars),
  description: readableText(LIMITS.descriptionMaxChars),
  order: order(),
  groupId: text(LIMITS.idMaxChars),
  groupOrder: order(),
};

export type ComponentFields = { [K in keyof typeof componentFields]: z.output<(typeof componentFields)[K]> };

/** A component's fields with their defaults, as a create takes them. */
export const componentSchema = z.object({
  type: componentFields.type,
  monitorId: componentFields.monitorId.default(""),
  name: componentFields.name.default(""),
  description: componentFields.description.default(""),
  order: componentFields.order.default(0),
  groupId: componentFields.groupId.default(""),
  groupOrder: componentFields.groupOrder.default(0),
});

/** Validates a new component, with the rule between type and monitor_id. */
export function parseComponent(input: Partial<Record<keyof ComponentFields, unknown>>, prefix = "component"): ComponentFields {
  const component = parseOrThrow(componentSchema, input, prefix);
  checkComponentMonitor(component, prefix);
  return component;
}

/** Validates the fields an update changes, each by its own rule. */
export function parseComponentChanges<K extends keyof ComponentFields>(
  input: Pick<Record<keyof ComponentFields, unknown>, K>,
  prefix = "component",
): Pick<ComponentFields, K> {
  const shape = Object.fromEntries(Object.keys(input).map((key) => [key, componentFields[key as K]]));
  return parseOrThrow(z.object(shape), input, prefix) as Pick<ComponentFields, K>;
}

/** A monitor component shows a monitor; a static one shows none. Fields are named as in the component. */
export function componentMonitorViolations(component: { type: ComponentType; monitorId: string }): FieldViolation[] {
  if (component.type === "monitor" && component.monitorId === "") return [{ field: "monitorId", rule: "is required when type is monitor" }];
  if (component.type === "static" && component.monitorId !== "") return [{ field: "monitorId", rule: "must be empty when type is static" }];
  return [];
}

/** componentMonitorViolations, thrown. */
export function checkComponentMonitor(component: { type: ComponentType; monitorId: string }, prefix = "component"): void {
  throwViolations(componentMonitorViolations(component), prefix);
}

/**
 * What a component refers to must exist where it is looked for: its monitor among the workspace's
 * (for vigil.yaml, the file's own monitors), its group among its own page's. `has` tells whether
 * one exists; `where` names the places in the rule. Fields are named as in the component.
 */
export function componentReferenceViolations(
  component: { monitorId?: string | undefined; groupId?: string | undefined },
  has: { monitor(id: string): boolean; group(id: string): boolean },
  where: { monitors: string; groups: string } = { monitors: "in this workspace", groups: "on this page" },
): FieldViolation[] {
  const { monitorId, groupId } = component;
  return [
    ...(monitorId && !has.monitor(monitorId) ? [{ field: "monitorId", rule: `no monitor ${monitorId} ${where.monitors}` }] : []),
    ...(groupId && !has.group(groupId) ? [{ field: "groupId", rule: `no group ${groupId} ${where.groups}` }] : []),
  ];
}

/** A group's fields, as a create takes them. */
export const groupSchema = z.object({ name: requiredLine(LIMITS.nameMaxChars) });

/** Validates a group's name (`group.name`). */
export function parseGroupName(name: unknown, prefix = "group"): string {
  return parseOrThrow(groupSchema, { name }, prefix).name;
}
