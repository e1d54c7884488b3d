import { z } from "zod";
import { AddressPolicy, parseEnv } from "@vigil/domain";

const unsetIfEmpty = (value: unknown) => (value === "" ? undefined : value);
const optional = () => z.preprocess(unsetIfEmpty, z.string().optional());
const url = (fallback: string) => z.preprocess(unsetIfEmpty, z.url({ protocol: /^https?$/ }).default(fallback));

/**
 * Every deployment setting of the providers, read from the environment, with
 * its default. Base URLs are settings so that a deployment (or a test) can
 * point a provider at another host.
 */
const envSchema = z.object({
  PUBLIC_URL: z.preprocess(unsetIfEmpty, z.url({ protocol: /^https?$/ }).optional()),
  PAGERDUTY_EVENTS_URL: url("https://events.pagerduty.com/v2/enqueue"),
  OPSGENIE_API_URL: url("https://api.opsgenie.com"),
  OPSGENIE_EU_API_URL: url("https://api.eu.opsgenie.com"),
  TELEGRAM_API_URL: url("https://api.telegram.org"),
  TELEGRAM_BOT_TOKEN: optional(),
  TWILIO_API_URL: url("https://api.twilio.com"),
  TWILIO_ACCOUNT_SID: optional(),
  TWILIO_AUTH_TOKEN: optional(),
  TWILIO_SMS_FROM: optional(),
  TWILIO_WHATSAPP_FROM: optional(),
  TWILIO_WHATSAPP_CONTENT_SID: optional(),
  SMTP_URL: z.preprocess(unsetIfEmpty, z.url({ protocol: /^smtps?$/ }).optional()),
  EMAIL_FROM: z.preprocess(unsetIfEmpty, z.string().default("Vigil <vigil@localhost>")),
  NOTIFICATION_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
});

/** The name of every variable the providers read. */
export const PROVIDER_SETTING_NAMES: readonly string[] = Object.keys(envSchema.shape);

export interface ProviderSettings {
  /** Where links in messages point; `http://localhost:<PORT>` when PUBLIC_URL is unset. */
  publicUrl: string;
  pagerdutyEventsUrl: string;
  opsgenieApiUrl: string;
  opsgenieEuApiUrl: string;
  telegramApiUrl: string;
  telegramBotToken: string | undefined;
  twilioApiUrl: string;
  twilioAccountSid: string | undefined;
  twilioAuthToken: string | undefined;
  twilioSmsFrom: string | undefined;
  twilioWhatsappFrom: string | undefined;
  /** An approved WhatsApp template; without one, WhatsApp messages go as Body (see docs/alerting.md). */
  twilioWhatsappContentSid: string | undefined;
  smtpUrl: string | undefined;
  emailFrom: string;
  /** How long one outbound request may take, in ms. */
  requestTimeoutMs: number;
  /** Answers are read up to this many bytes (enough for any error message). */
  maxResponseBytes: number;
  /** Which addresses channels' own URLs (webhooks, ntfy servers) may reach: ALLOW_PRIVATE_TARGETS, ALLOWED_TARGET_CIDRS. */
  addressPolicy: AddressPolicy;
}

export function providerSettingsFromEnv(env: NodeJS.ProcessEnv, fallbackPublicUrl: string): ProviderSettings {
  const e = parseEnv(envSchema, env);
  return {
    publicUrl: (e.PUBLIC_URL ?? fallbackPublicUrl).replace(/\/+$/, ""),
    pagerdutyEventsUrl: e.PAGERDUTY_EVENTS_URL,
    opsgenieApiUrl: e.OPSGENIE_API_URL.replace(/\/+$/, ""),
    opsgenieEuApiUrl: e.OPSGENIE_EU_API_URL.replace(/\/+$/, ""),
    telegramApiUrl: e.TELEGRAM_API_URL.replace(/\/+$/, ""),
    telegramBotToken: e.TELEGRAM_BOT_TOKEN,
    twilioApiUrl: e.TWILIO_API_URL.replace(/\/+$/, ""),
    twilioAccountSid: e.TWILIO_ACCOUNT_SID,
    twilioAuthToken: e.TWILIO_AUTH_TOKEN,
    twilioSmsFrom: e.TWILIO_SMS_FROM,
    twilioWhatsappFrom: e.TWILIO_WHATSAPP_FROM,
    twilioWhatsappContentSid: e.TWILIO_WHATSAPP_CONTENT_SID,
    smtpUrl: e.SMTP_URL,
    emailFrom: e.EMAIL_FROM,
    requestTimeoutMs: e.NOTIFICATION_TIMEOUT_SECONDS * 1000,
    maxResponseBytes: 64 * 1024,
    addressPolicy: AddressPolicy.fromEnv(env),
  };
}
