import { post } from "../../http";
import { incidentKey } from "../../incident-key";
import { facts, headline, plainText, summary } from "../../text";
import { truncate } from "../../truncate";
import type { AlertMessage, Provider } from "../../types";

// Opsgenie's documented field limits; longer values are refused, not cut.
const MESSAGE_MAX = 130;
const DESCRIPTION_MAX = 15_000;
const NOTE_MAX = 25_000;

/** Down is P1, degraded and an expiring certificate P3 (Opsgenie's default), a test P5 (informational). */
const PRIORITY = { "monitor.failed": "P1", "monitor.degraded": "P3", "monitor.certificate_expiring": "P3", "slo.burn_rate": "P2", test: "P5" } as const;

/**
 * Alerts go under the incident's alias: Opsgenie takes a second alert with
 * the alias of an open one (a degradation after a failure) as a repeat of
 * it, so one outage stays one alert, and the recovery closes it by alias
 * (a certificate's renewal closes its warning).
 * A test has an alias of its own and stays open until someone closes it,
 * like a real alert.
 */
function requestOf(message: AlertMessage, base: string): { url: string; json: object } {
  const alias = incidentKey(message);
  if (message.event === "monitor.recovered" || message.event === "monitor.certificate_renewed" || message.event === "slo.burn_rate_ended") {
    return {
      url: `${base}/v2/alerts/${encodeURIComponent(alias)}/close?identifierType=alias`,
      json: { source: "Vigil", note: truncate(plainText(message), NOTE_MAX) },
    };
  }
  // Opsgenie's own acknowledgement of the alert, which stops its escalations as Vigil's reminders stop.
  if (message.event === "incident.acknowledged") {
    return {
      url: `${base}/v2/alerts/${encodeURIComponent(alias)}/acknowledge?identifierType=alias`,
      json: { source: "Vigil", note: truncate(plainText(message), NOTE_MAX) },
    };
  }
  return {
    url: `${base}/v2/alerts`,
    json: {
      message: truncate(summary(message), MESSAGE_MAX),
      alias,
      description: truncate(plainText(message), DESCRIPTION_MAX),
      priority: PRIORITY[message.event],
      tags: ["vigil", message.monitor.kind, headline(message).toLowerCase()],
      details: Object.fromEntries(facts(message).map((f) => [f.label, f.value])),
      entity: message.monitor.name,
      source: "Vigil",
    },
  };
}

export const opsgenie: Provider<"opsgenie"> = {
  type: "opsgenie",
  missingSettings: () => [],
  async send(message, channel, context) {
    const { settings } = context;
    const base = channel.config.region === "eu" ? settings.opsgenieEuApiUrl : settings.opsgenieApiUrl;
    const { url, json } = requestOf(message, base);
    const answer = await post(url, { headers: { authorization: `GenieKey ${channel.config.apiKey}` }, json, operatorEndpoint: true }, context);
    return { statusCode: answer.status };
  },
};
