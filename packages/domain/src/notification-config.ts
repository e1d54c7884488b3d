import { z } from "zod";
import { LIMITS } from "./limits";
import { headerName, headerValue, httpUrl, integer, list, nonEmptyText, oneOf, readableLine, set, text, typed } from "./rules";
import { parseId } from "./resource-id";
import { ValidationError, parseOrThrow } from "./validation";

/** The contract's 12 provider types, as `provider_type` spells them. */
export const PROVIDER_TYPES = [
  "discord",
  "email",
  "slack",
  "pagerduty",
  "opsgenie",
  "webhook",
  "telegram",
  "sms",
  "whatsapp",
  "google_chat",
  "grafana_oncall",
  "ntfy",
] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];
export const isProviderType = (value: unknown): value is ProviderType => PROVIDER_TYPES.includes(value as ProviderType);

/** Keys and tokens are checked for presence and length only: providers change their formats. */
const secretText = () => nonEmptyText(LIMITS.secretMaxChars);
const webhookUrl = () => httpUrl(LIMITS.targetMaxChars);
/** E.164: a plus, a country code and at most 15 digits in all. */
const phoneNumber = () => nonEmptyText(16).regex(/^\+[1-9]\d{1,14}$/, "must be an E.164 phone number such as +15558675310");
const header = z.object({ key: headerName(), value: headerValue() });

/** Each provider block's fields (camelCase, as in JSON) and rules. */
export const PROVIDER_BLOCK_SCHEMAS = {
  discord: z.object({ webhookUrl: webhookUrl() }),
  email: z.object({ email: nonEmptyText(LIMITS.emailMaxChars).pipe(z.email("must be an email address")) }),
  slack: z.object({ webhookUrl: webhookUrl() }),
  pagerduty: z.object({ integrationKey: secretText() }),
  opsgenie: z.object({ apiKey: secretText(), region: oneOf(["us", "eu"]) }),
  webhook: z.object({ endpoint: webhookUrl(), headers: list(header, LIMITS.webhookHeaders).default([]) }),
  telegram: z.object({ chatId: nonEmptyText(LIMITS.chatIdMaxChars) }),
  sms: z.object({ phoneNumber: phoneNumber() }),
  whatsapp: z.object({ phoneNumber: phoneNumber() }),
  google_chat: z.object({ webhookUrl: webhookUrl() }),
  grafana_oncall: z.object({ webhookUrl: webhookUrl() }),
  ntfy: z.object({
    // ntfy's own topic rule: letters, digits, - and _, at most 64.
    topic: nonEmptyText(64).regex(/^[-_A-Za-z0-9]+$/, "must be letters, digits, - and _ only"),
    serverUrl: z.union([z.literal(""), webhookUrl()], typed("an http:// or https:// URL")).default(""),
    token: text(LIMITS.secretMaxChars).default(""),
  }),
} satisfies Record<ProviderType, z.ZodType>;

export type ProviderConfigByType = { [T in ProviderType]: z.output<(typeof PROVIDER_BLOCK_SCHEMAS)[T]> };
/** A channel's provider and its block, validated. */
export type ProviderConfig = { [T in ProviderType]: { type: T; config: ProviderConfigByType[T] } }[ProviderType];

/**
 * The block fields the contract marks sensitive: stored encrypted, never
 * logged, and answered only in a redacted form.
 */
export const SENSITIVE_FIELDS: { [T in ProviderType]: readonly (keyof ProviderConfigByType[T])[] } = {
  discord: ["webhookUrl"],
  email: [],
  slack: ["webhookUrl"],
  pagerduty: ["integrationKey"],
  opsgenie: ["apiKey"],
  webhook: [],
  telegram: [],
  sms: [],
  whatsapp: [],
  google_chat: ["webhookUrl"],
  grafana_oncall: ["webhookUrl"],
  ntfy: ["token"],
};

/** The JSON name of each provider's block in a Notification (`googleChat` for google_chat). */
export const blockName = (type: ProviderType): string => type.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/**
 * Validates one provider block.
 * @throws ValidationError naming each field under `<prefix>.<blockName>.`
 */
export function parseProviderConfig<T extends ProviderType>(type: T, input: unknown, prefix = "notification"): ProviderConfigByType[T] {
  return parseOrThrow(PROVIDER_BLOCK_SCHEMAS[type], input, `${prefix}.${blockName(type)}`) as ProviderConfigByType[T];
}

/** The fields every channel has, as a create takes them. */
export const channelSchema = z.object({
  name: readableLine(LIMITS.nameMaxChars).default(""),
  monitorIds: set(nonEmptyText(LIMITS.idMaxChars)).default([]),
  reminderMinutes: integer(LIMITS.reminderMinutes).default(0),
});
export type ChannelCommon = z.output<typeof channelSchema>;

/** Validates the fields every channel has (name, monitorIds, reminderMinutes). */
export function parseChannelCommon(input: { name?: unknown; monitorIds?: unknown; reminderMinutes?: unknown }, prefix = "notification"): ChannelCommon {
  return parseOrThrow(channelSchema, input, prefix);
}

/** Which deliveries a listing reads: a channel's, an incident's (across the workspace's channels), or both at once. */
export function parseDeliveriesFilter(input: { id: string; incidentId: string }): { notificationId?: string; incidentId?: string } {
  if (input.id === "" && input.incidentId === "") throw ValidationError.of("id", "is required unless incidentId is given");
  return {
    ...(input.id === "" ? {} : { notificationId: parseId(input.id) }),
    ...(input.incidentId === "" ? {} : { incidentId: parseId(input.incidentId, "incidentId") }),
  };
}
