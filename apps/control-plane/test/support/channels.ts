import type { MessageInitShape } from "@bufbuild/protobuf";
import { blockName, type ProviderType } from "@vigil/domain";
import type { NotificationSchema } from "@vigil/proto/notification";

export type NotificationInit = MessageInitShape<typeof NotificationSchema>;

/** Provider settings under which every provider type may be configured (nothing is ever sent to these). */
export const EVERY_PROVIDER_ENV: NodeJS.ProcessEnv = {
  TELEGRAM_BOT_TOKEN: "123456:ABC-token",
  TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
  TWILIO_AUTH_TOKEN: "twilio-auth-token",
  TWILIO_SMS_FROM: "+15557122661",
  TWILIO_WHATSAPP_FROM: "+14155238886",
  SMTP_URL: "smtp://127.0.0.1:1",
};

/** A valid block of each provider type, as the block's JSON fields. */
export const VALID_BLOCKS: Record<ProviderType, Record<string, unknown>> = {
  discord: { webhookUrl: "https://discord.com/api/webhooks/123456/abcdefghijklmnopqrstuvwxyz" },
  email: { email: "ops@example.com" },
  slack: { webhookUrl: "https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnopqrstuvwx" },
  pagerduty: { integrationKey: "0123456789abcdef0123456789abcdef" },
  opsgenie: { apiKey: "eb243592-faa2-4ba2-a551-1afdf565c889", region: "eu" },
  webhook: { endpoint: "https://hooks.example.com/vigil", headers: [{ key: "x-team", value: "ops" }] },
  telegram: { chatId: "-1001234567890" },
  sms: { phoneNumber: "+15558675310" },
  whatsapp: { phoneNumber: "+15558675310" },
  google_chat: { webhookUrl: "https://chat.googleapis.com/v1/spaces/AAAA/messages?key=the-key&token=the-token" },
  grafana_oncall: { webhookUrl: "https://oncall.example.com/integrations/v1/formatted_webhook/AbC123/" },
  ntfy: { topic: "vigil-alerts", serverUrl: "https://ntfy.example.com", token: "tk_abcdefghijklmnopqrstuvwxyz" },
};

/** A Notification carrying one block of `type` with `fields` (a valid block when not given), plus `extra` fields. */
export function channel(type: ProviderType, fields: Record<string, unknown> = VALID_BLOCKS[type], extra: NotificationInit = {}): NotificationInit {
  return { ...extra, provider: { case: blockName(type), value: fields } } as NotificationInit;
}

/**
 * Provider settings that send every provider's API calls to `providerUrl` (a local provider server) and mail to a
 * local SMTP server on `smtpPort`.
 */
export const localProviderEnv = (providerUrl: string, smtpPort: number): NodeJS.ProcessEnv => ({
  PAGERDUTY_EVENTS_URL: `${providerUrl}/v2/enqueue`,
  OPSGENIE_API_URL: providerUrl,
  TELEGRAM_API_URL: providerUrl,
  TELEGRAM_BOT_TOKEN: "123456:ABC-token",
  TWILIO_API_URL: providerUrl,
  TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
  TWILIO_AUTH_TOKEN: "twilio-auth-token",
  TWILIO_SMS_FROM: "+15557122661",
  TWILIO_WHATSAPP_FROM: "+14155238886",
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
});

/** A block of each provider type whose webhook URLs are under `url` (a local provider server). */
export const localBlocks = (url: string): Record<ProviderType, Record<string, unknown>> => ({
  discord: { webhookUrl: `${url}/api/webhooks/123/abc` },
  email: { email: "ops@example.com" },
  slack: { webhookUrl: `${url}/services/T000/B000/XXXX` },
  pagerduty: { integrationKey: "0123456789abcdef0123456789abcdef" },
  opsgenie: { apiKey: "eb243592-faa2-4ba2-a551-1afdf565c889", region: "us" },
  webhook: { endpoint: `${url}/hook`, headers: [] },
  telegram: { chatId: "-1001234567890" },
  sms: { phoneNumber: "+15558675310" },
  whatsapp: { phoneNumber: "+15558675310" },
  google_chat: { webhookUrl: `${url}/v1/spaces/AAA/messages?key=k&token=t` },
  grafana_oncall: { webhookUrl: `${url}/integrations/v1/formatted_webhook/AbC123/` },
  ntfy: { topic: "vigil-alerts", serverUrl: url },
});
