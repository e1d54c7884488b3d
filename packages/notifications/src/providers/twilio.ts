import { post } from "../http";
import type { ProviderSettings } from "../settings";
import type { Delivered, SendContext } from "../types";

/** Twilio refuses a longer Body. */
export const BODY_MAX = 1600;

/** The unset variables among the account's and the sender's (`sender`: its variable and value). */
export function missingTwilioSettings(settings: ProviderSettings, sender: Record<string, string | undefined>): string[] {
  const wanted = { TWILIO_ACCOUNT_SID: settings.twilioAccountSid, TWILIO_AUTH_TOKEN: settings.twilioAuthToken, ...sender };
  return Object.entries(wanted)
    .filter(([, value]) => !value)
    .map(([variable]) => variable);
}

/**
 * Creates one message through Twilio's Messages API (SMS and WhatsApp alike):
 * a form post with the account SID and auth token as Basic credentials.
 * Twilio answers 201 once it has queued the message; whether it reached the
 * phone is only known later, from Twilio's message log.
 */
export async function sendTwilioMessage(fields: Record<string, string>, context: SendContext): Promise<Delivered> {
  const { twilioApiUrl, twilioAccountSid = "", twilioAuthToken = "" } = context.settings;
  const url = `${twilioApiUrl}/2010-04-01/Accounts/${encodeURIComponent(twilioAccountSid)}/Messages.json`;
  const credentials = Buffer.from(`${twilioAccountSid}:${twilioAuthToken}`).toString("base64");
  const answer = await post(url, { headers: { authorization: `Basic ${credentials}` }, form: new URLSearchParams(fields), operatorEndpoint: true }, context);
  return { statusCode: answer.status };
}
