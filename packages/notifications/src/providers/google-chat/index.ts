import { incidentKey } from "../../incident-key";
import { post } from "../../http";
import { plainText, title } from "../../text";
import type { AlertMessage, Provider } from "../../types";

/**
 * Where to post: the webhook URL with its own key and token, plus the reply
 * option that makes Chat honour the body's threadKey (without it every
 * message starts a new thread).
 */
function threadedUrl(webhookUrl: string): string {
  const url = new URL(webhookUrl);
  url.searchParams.set("messageReplyOption", "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD");
  return url.toString();
}

/**
 * A text message (Chat's *bold* title, then the summary and the facts);
 * messages of one incident share a thread, so the recovery lands under
 * the alert. A test message has no incident and starts a thread of its own.
 */
function payloadOf(message: AlertMessage) {
  const text = `*${title(message)}*\n${plainText(message)}`;
  return message.incident ? { text, thread: { threadKey: incidentKey(message) } } : { text };
}

export const googleChat: Provider<"google_chat"> = {
  type: "google_chat",
  missingSettings: () => [],
  async send(message, channel, context) {
    const webhookUrl = channel.config.webhookUrl;
    const url = message.incident ? threadedUrl(webhookUrl) : webhookUrl;
    const answer = await post(url, { json: payloadOf(message), contentType: "application/json; charset=UTF-8" }, context);
    return { statusCode: answer.status };
  },
};
