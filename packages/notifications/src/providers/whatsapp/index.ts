import { plainText, summary, title } from "../../text";
import { truncate } from "../../truncate";
import type { AlertMessage, Provider } from "../../types";
import { refuseUnconfigured } from "../../unconfigured";
import { BODY_MAX, missingTwilioSettings, sendTwilioMessage } from "../twilio";

/** WhatsApp's limit for a template's body variable. */
const VARIABLE_MAX = 1024;

/** WhatsApp refuses a template variable holding a newline, a tab or more than four spaces in a row. */
const variable = (text: string) => truncate(text.replace(/\s+/g, " ").trim(), VARIABLE_MAX);

/**
 * Outside the 24-hour window that a message from the recipient opens,
 * WhatsApp delivers only approved templates (Twilio error 63016 otherwise),
 * and an alert is nearly always outside it. With TWILIO_WHATSAPP_CONTENT_SID
 * set, messages use that template: {{1}} the title, {{2}} the summary, {{3}}
 * the link. Without it they go as free text (title, summary and every fact),
 * which only arrives inside the window.
 */
function contentOf(message: AlertMessage, contentSid: string | undefined): Record<string, string> {
  if (contentSid) {
    const variables = { 1: variable(title(message)), 2: variable(summary(message)), 3: message.link };
    return { ContentSid: contentSid, ContentVariables: JSON.stringify(variables) };
  }
  return { Body: truncate(`${title(message)}\n\n${plainText(message)}`, BODY_MAX) };
}

/** Twilio addresses WhatsApp as "whatsapp:+E164"; the setting may be written with or without the prefix. */
const whatsappAddress = (number: string) => `whatsapp:${number.replace(/^whatsapp:/, "")}`;

export const whatsapp: Provider<"whatsapp"> = {
  type: "whatsapp",
  missingSettings: (settings) => missingTwilioSettings(settings, { TWILIO_WHATSAPP_FROM: settings.twilioWhatsappFrom }),
  async send(message, channel, context) {
    refuseUnconfigured(whatsapp.missingSettings(context.settings));
    const { twilioWhatsappFrom = "", twilioWhatsappContentSid } = context.settings;
    const fields = {
      To: whatsappAddress(channel.config.phoneNumber),
      From: whatsappAddress(twilioWhatsappFrom),
      ...contentOf(message, twilioWhatsappContentSid),
    };
    return sendTwilioMessage(fields, context);
  },
};
