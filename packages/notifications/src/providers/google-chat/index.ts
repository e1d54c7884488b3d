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

/** Links, which Chat links as they are: left whole, so that a target's `_` or `&` still reaches the same address. */
const LINKS = /(https?:\/\/[^\s<>]+)/;
/** What Chat's text format gives a meaning: `<users/all>` notifies everyone, `<url|text>` links, `&` starts an entity, and `*_~` and backquotes format. */
const MARKUP = /[<>&*_~`]/g;
/** U+200B ZERO WIDTH SPACE, which shows nothing. */
const ZWSP = "\u200b";

/**
 * User text (monitor names, targets, errors) as Chat shows it, letter for letter. Chat's format has no escape
 * character, and whether it decodes entities is not documented, so each character it gives a meaning is set
 * apart by zero-width spaces: a mention, a link or an entity then no longer reads as one, and a formatting
 * marker stands at no word's edge. Links are left as they are.
 */
const escapeChatText = (text: string): string =>
  text
    .split(LINKS)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(MARKUP, (c) => `${ZWSP}${c}${ZWSP}`)))
    .join("");

/**
 * A text message (Chat's *bold* title, then the summary and the facts);
 * messages of one incident share a thread, so the recovery lands under
 * the alert; the warnings about one certificate share one too. A test
 * message has neither and starts a thread of its own.
 */
function payloadOf(message: AlertMessage) {
  const text = `*${escapeChatText(title(message))}*\n${escapeChatText(plainText(message))}`;
  return threaded(message) ? { text, thread: { threadKey: incidentKey(message) } } : { text };
}

const threaded = (message: AlertMessage) => message.incident !== null || Boolean(message.certificate);

export const googleChat: Provider<"google_chat"> = {
  type: "google_chat",
  missingSettings: () => [],
  async send(message, channel, context) {
    const webhookUrl = channel.config.webhookUrl;
    const url = threaded(message) ? threadedUrl(webhookUrl) : webhookUrl;
    const answer = await post(url, { json: payloadOf(message), contentType: "application/json; charset=UTF-8" }, context);
    return { statusCode: answer.status };
  },
};
