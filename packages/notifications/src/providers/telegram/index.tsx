import { renderToStaticMarkup } from "react-dom/server";
import { post } from "../../http";
import { plainText, title } from "../../text";
import { truncate } from "../../truncate";
import type { AlertMessage, Provider } from "../../types";
import { refuseUnconfigured } from "../../unconfigured";

/** Telegram's limit, counted on the text as shown (after entity parsing). */
const TEXT_MAX = 4096;

/**
 * The bold title, then the summary and one fact per line, in Telegram's HTML
 * as JSX: React escapes all of it but the <b> tags (user and server text), and
 * the shown text is cut to Telegram's limit before that, so no entity or tag is
 * ever split. Telegram makes the link clickable by itself.
 */
function textOf(message: AlertMessage): string {
  const heading = title(message);
  const body = truncate(plainText(message), TEXT_MAX - heading.length - 2);
  return renderToStaticMarkup(
    <>
      <b>{heading}</b>
      {"\n\n"}
      {body}
    </>,
  );
}

/** Flood control answers 429 with the wait in the body: {"parameters": {"retry_after": seconds}}. */
function retryAfterOf(body: string): number | null {
  try {
    const seconds: unknown = JSON.parse(body)?.parameters?.retry_after;
    return typeof seconds === "number" && seconds >= 0 ? seconds * 1000 : null;
  } catch {
    return null;
  }
}

export const telegram: Provider<"telegram"> = {
  type: "telegram",
  missingSettings: (settings) => (settings.telegramBotToken ? [] : ["TELEGRAM_BOT_TOKEN"]),
  async send(message, channel, context) {
    const { settings } = context;
    refuseUnconfigured(telegram.missingSettings(settings));
    // The token goes into the path as Telegram issues it ("123456:ABC-…"); post() names only the host in errors.
    const url = `${settings.telegramApiUrl}/bot${settings.telegramBotToken}/sendMessage`;
    const json = { chat_id: channel.config.chatId, text: textOf(message), parse_mode: "HTML", link_preview_options: { is_disabled: true } };
    const answer = await post(url, { json, retryAfterFromBody: retryAfterOf, operatorEndpoint: true }, context);
    return { statusCode: answer.status };
  },
};
