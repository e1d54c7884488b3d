import { z } from "zod";
import { LIMITS } from "./limits";
import { httpUrl, list, nonEmptyText, readableLine, set } from "./rules";
import { emailDomainOf } from "./status-page-access";
import { ValidationError, parseOrThrow } from "./validation";

/**
 * Subscriptions to a status page (docs/status-pages.md, "Subscribers"):
 * how many mails one address may be sent to confirm, how long a
 * confirmation link works, and how many subscribers a page may have unless
 * the deployment says otherwise (STATUS_PAGE_SUBSCRIBERS_MAX).
 */
export const SUBSCRIBERS = {
  /** Confirmation mails sent to one address (across pages) per hour: a form cannot be used to flood an inbox. */
  confirmationMailsPerAddressPerHour: 3,
  /** A confirmation link works this long; an unconfirmed subscription older than it is forgotten. */
  confirmLinkHours: 48,
  /** Subscribers (confirmed or waiting) one page may have: the default of STATUS_PAGE_SUBSCRIBERS_MAX. */
  defaultMaxPerPage: 50_000,
  /** Components one subscription may choose; none means all of the page. */
  componentsMax: 100,
  /** Subscribers told by one job: a notice to many people is sent as jobs of this many. */
  batchSize: 200,
} as const;

/** What subscribers are told of: written incidents' lifecycle and maintenance windows'. */
export const SUBSCRIBER_NOTICE_KINDS = [
  "incident.created",
  "incident.updated",
  "incident.resolved",
  "maintenance.scheduled",
  "maintenance.started",
  "maintenance.completed",
] as const;
export type SubscriberNoticeKind = (typeof SUBSCRIBER_NOTICE_KINDS)[number];

/** A visitor's subscription as the public form sends it: an address to mail, or (later) a webhook; and the components chosen. */
export type Subscription = { kind: "email"; address: string; domain: string; components: string[] } | { kind: "webhook"; url: string; components: string[] };

const componentIds = set(readableLine(LIMITS.idMaxChars).min(1, "must not be empty")).pipe(list(z.string(), SUBSCRIBERS.componentsMax));
const emailForm = z.object({ email: nonEmptyText(LIMITS.emailMaxChars).pipe(z.email("must be an email address")), components: componentIds });
const webhookForm = z.object({ webhook: httpUrl(LIMITS.targetMaxChars), components: componentIds });

/**
 * The subscribe form's fields: `email` (an address, lowercased: one person
 * subscribes once however they spell it) or `webhook` (an http(s) URL), never
 * both, and `components`, the ids chosen (none: all of the page).
 * @throws ValidationError naming the field
 */
export function parseSubscription(form: { email?: string; webhook?: string; components: readonly string[] }): Subscription {
  const email = form.email?.trim() ?? "";
  const webhook = form.webhook?.trim() ?? "";
  if (email !== "" && webhook !== "") throw ValidationError.of("webhook", "must not be given with email: subscribe one of them at a time");
  if (webhook !== "") {
    const parsed = parseOrThrow(webhookForm, { webhook, components: [...form.components] }, "");
    return { kind: "webhook", url: parsed.webhook, components: parsed.components };
  }
  if (email === "") throw ValidationError.of("email", "is required");
  const parsed = parseOrThrow(emailForm, { email, components: [...form.components] }, "");
  const address = parsed.email.toLowerCase();
  return { kind: "email", address, domain: emailDomainOf(address), components: parsed.components };
}

/** Whether a page holding `count` subscribers may take one more under the deployment's limit. */
export const subscriberRoomLeft = (count: number, maxPerPage: number): boolean => count < maxPerPage;

/**
 * Whom a notice reaches: subscribers of all of the page (no components
 * chosen), and those who chose one of the components it names. A notice that
 * names no component (an incident of no component) reaches only the former.
 */
export const noticeReaches = (chosen: readonly string[], named: readonly string[]): boolean =>
  chosen.length === 0 || chosen.some((id) => named.includes(id));

/** What an incident's new status tells subscribers: it was opened, it moved, or it was resolved. */
export function incidentNoticeKind(opened: boolean, status: string): SubscriberNoticeKind {
  if (status === "resolved") return "incident.resolved";
  return opened ? "incident.created" : "incident.updated";
}

/** A subscriber as the owners' CSV export writes it (times as ISO 8601, "" when unset). */
export interface SubscriberCsvRow {
  id: string;
  kind: string;
  email: string;
  webhookUrl: string;
  componentIds: readonly string[];
  confirmed: boolean;
  confirmedAt: string;
  createdAt: string;
}

/** A cell as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break; a formula's first character made text with a leading '. */
function csvCell(value: string): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const CSV_COLUMNS = ["id", "kind", "email", "webhook_url", "component_ids", "confirmed", "confirmed_at", "created_at"] as const;

/**
 * The CSV export of a page's subscribers (RFC 4180 with LF line ends, a
 * header row, component ids joined by spaces), as the CLI and the console
 * write it. Cells a spreadsheet would run as formulas (=, +, -, @ first) are
 * written as text. Written here rather than with a CSV library: the one
 * tried (csv-stringify) needs Node's Buffer when loaded, which the console's
 * browser bundle has not.
 */
export function subscribersCsv(rows: readonly SubscriberCsvRow[]): string {
  const lines = rows.map((r) =>
    [r.id, r.kind, r.email, r.webhookUrl, r.componentIds.join(" "), r.confirmed ? "true" : "false", r.confirmedAt, r.createdAt].map(csvCell).join(","),
  );
  return [CSV_COLUMNS.join(","), ...lines, ""].join("\n");
}
