import { post } from "../../http";
import { colourOf, facts, summary, title } from "../../text";
import { truncate } from "../../truncate";
import type { AlertMessage, Provider } from "../../types";

// Discord's embed limits: Execute Webhook answers 400 to an embed over any of them.
const LIMITS = { title: 256, description: 4096, fieldName: 256, fieldValue: 1024, total: 6000 };

/**
 * One embed in the event's colour: the title, the facts as fields and the
 * summary as description. The title and facts come first within the
 * embed's total limit; the summary, which repeats them, takes what is left.
 */
function embedOf(message: AlertMessage) {
  let left = LIMITS.total;
  const take = (text: string, max: number) => {
    const kept = truncate(text, Math.min(max, left));
    left -= kept.length;
    return kept;
  };
  const embedTitle = take(title(message), LIMITS.title);
  const fields = facts(message)
    .map((fact) => ({ name: take(fact.label, LIMITS.fieldName), value: take(fact.value, LIMITS.fieldValue) }))
    .filter((field) => field.name !== "" && field.value !== "");
  return {
    title: embedTitle,
    description: take(summary(message), LIMITS.description),
    url: message.link,
    color: colourOf(message),
    fields,
    timestamp: message.occurredAt.toISOString(),
  };
}

/** Discord puts the wait of a 429 in its JSON body as `retry_after`, in (fractional) seconds. */
function retryAfterFromBody(body: string): number | null {
  try {
    const seconds = (JSON.parse(body) as { retry_after?: unknown }).retry_after;
    return typeof seconds === "number" && seconds >= 0 ? Math.round(seconds * 1000) : null;
  } catch {
    return null;
  }
}

export const discord: Provider<"discord"> = {
  type: "discord",
  missingSettings: () => [],
  async send(message, channel, context) {
    const payload = {
      username: "Vigil",
      // Monitor names and errors are user text: never let them ping @everyone or a role.
      allowed_mentions: { parse: [] },
      embeds: [embedOf(message)],
    };
    const answer = await post(channel.config.webhookUrl, { json: payload, retryAfterFromBody }, context);
    return { statusCode: answer.status };
  },
};
