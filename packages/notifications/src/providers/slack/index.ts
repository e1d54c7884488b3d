import { post } from "../../http";
import { facts, hexColour, summary, title } from "../../text";
import { truncate } from "../../truncate";
import type { AlertMessage, Provider } from "../../types";

// Slack's Block Kit limits: a section's text and each of its (at most 10) fields.
const SECTION_TEXT_MAX = 3000;
const FIELD_TEXT_MAX = 2000;
const FIELDS_PER_SECTION = 10;

/** Slack mrkdwn treats &, < and > as control characters. */
const escapeMrkdwn = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * A Slack incoming webhook message: `text` is the summary (the notification
 * and fallback), and one attachment in the event's colour carries the title,
 * the summary and every fact as Block Kit blocks.
 */
function slackPayload(message: AlertMessage) {
  const fields = facts(message).map((fact) => ({
    type: "mrkdwn",
    text: truncate(`*${fact.label}*\n${escapeMrkdwn(fact.value)}`, FIELD_TEXT_MAX),
  }));
  const factSections = [];
  for (let i = 0; i < fields.length; i += FIELDS_PER_SECTION) {
    factSections.push({ type: "section", fields: fields.slice(i, i + FIELDS_PER_SECTION) });
  }
  return {
    text: escapeMrkdwn(summary(message)),
    attachments: [
      {
        color: hexColour(message),
        blocks: [
          {
            type: "section",
            text: { type: "mrkdwn", text: truncate(`*${escapeMrkdwn(title(message))}*\n${escapeMrkdwn(summary(message))}`, SECTION_TEXT_MAX) },
          },
          ...factSections,
        ],
      },
    ],
  };
}

export const slack: Provider<"slack"> = {
  type: "slack",
  missingSettings: () => [],
  async send(message, channel, context) {
    const answer = await post(channel.config.webhookUrl, { json: slackPayload(message) }, context);
    return { statusCode: answer.status };
  },
};
