import { PROVIDER_BLOCK_SCHEMAS, SENSITIVE_FIELDS, blockName, type ProviderType } from "@vigil/domain/notifications";

/** The 12 channel types as people name them. */
export const PROVIDER_LABELS: Record<ProviderType, string> = {
  discord: "Discord",
  email: "Email",
  slack: "Slack",
  pagerduty: "PagerDuty",
  opsgenie: "Opsgenie",
  webhook: "Webhook",
  telegram: "Telegram",
  sms: "SMS",
  whatsapp: "WhatsApp",
  google_chat: "Google Chat",
  grafana_oncall: "Grafana OnCall",
  ntfy: "ntfy",
};

/** Every block field of every type, by its JSON name: a type's form is the fields of its domain schema, labelled here. */
const FIELD_TEXT: Record<string, { label: string; hint?: string; type?: string }> = {
  webhookUrl: { label: "Webhook URL", type: "url" },
  email: { label: "Email address", type: "email" },
  integrationKey: { label: "Integration key" },
  apiKey: { label: "API key" },
  region: { label: "Region" },
  endpoint: { label: "Endpoint URL", hint: "Vigil POSTs signed JSON (Standard Webhooks) to it.", type: "url" },
  headers: { label: "Headers" },
  chatId: { label: "Chat id" },
  phoneNumber: { label: "Phone number", hint: "E.164, such as +15558675310.", type: "tel" },
  topic: { label: "Topic" },
  serverUrl: { label: "Server URL (optional)", hint: "https://ntfy.sh when empty.", type: "url" },
  token: { label: "Access token (optional)" },
};

export interface BlockField {
  name: string;
  label: string;
  hint?: string | undefined;
  type?: string | undefined;
  sensitive: boolean;
  /** The choices of a field with a fixed set of values (Opsgenie's region). */
  options?: readonly string[] | undefined;
}

/** A type's block fields, in the order of its schema. */
export function fieldsOf(type: ProviderType): BlockField[] {
  const shape = PROVIDER_BLOCK_SCHEMAS[type].shape as Record<string, { options?: readonly string[] }>;
  return Object.entries(shape).map(([name, schema]) => ({
    name,
    ...FIELD_TEXT[name]!,
    sensitive: (SENSITIVE_FIELDS[type] as readonly string[]).includes(name),
    options: schema.options,
  }));
}

export { blockName };
