import { summary } from "../../text";
import { truncate } from "../../truncate";
import type { AlertMessage, Provider } from "../../types";
import { refuseUnconfigured } from "../../unconfigured";
import { BODY_MAX, missingTwilioSettings, sendTwilioMessage } from "../twilio";

/**
 * One short text: the summary (monitor, what happened, where, the error, on
 * recovery how long it lasted) and the link to the details, so that a
 * typical alert fits in one or two SMS segments. The link is never cut.
 */
function bodyOf(message: AlertMessage): string {
  const link = `\n${message.link}`;
  return `${truncate(`[Vigil] ${summary(message)}`, BODY_MAX - link.length)}${link}`;
}

export const sms: Provider<"sms"> = {
  type: "sms",
  missingSettings: (settings) => missingTwilioSettings(settings, { TWILIO_SMS_FROM: settings.twilioSmsFrom }),
  async send(message, channel, context) {
    refuseUnconfigured(sms.missingSettings(context.settings));
    return sendTwilioMessage({ To: channel.config.phoneNumber, From: context.settings.twilioSmsFrom ?? "", Body: bodyOf(message) }, context);
  },
};
