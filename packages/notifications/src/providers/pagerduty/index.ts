import { post } from "../../http";
import { incidentKey } from "../../incident-key";
import { facts, summary } from "../../text";
import { truncate } from "../../truncate";
import type { AlertMessage, Provider } from "../../types";

const SUMMARY_MAX = 1024;

/**
 * Down pages (critical), degraded and an expiring certificate warn, a test is informational: with
 * PagerDuty's severity-based urgency a test never wakes anyone.
 */
const SEVERITY = { "monitor.failed": "critical", "monitor.degraded": "warning", "monitor.certificate_expiring": "warning", "slo.burn_rate": "error", test: "info" } as const;

/**
 * An Events API v2 event. Failure and degradation trigger under the
 * incident's dedup_key (a degradation after a failure joins the open alert),
 * the recovery resolves it: PagerDuty reads nothing but the key from a
 * resolve (and a certificate's renewal resolves its warning). A test triggers under a key of its own and is not resolved, so
 * it shows up in PagerDuty as the alerts will.
 */
function eventOf(message: AlertMessage, routingKey: string, publicUrl: string) {
  const dedupKey = incidentKey(message);
  if (message.event === "monitor.recovered" || message.event === "monitor.certificate_renewed" || message.event === "slo.burn_rate_ended") return { routing_key: routingKey, event_action: "resolve", dedup_key: dedupKey };
  // PagerDuty's own acknowledgement of the alert: it stops escalating, as Vigil's reminders stop.
  if (message.event === "incident.acknowledged") return { routing_key: routingKey, event_action: "acknowledge", dedup_key: dedupKey };
  return {
    routing_key: routingKey,
    event_action: "trigger",
    dedup_key: dedupKey,
    payload: {
      summary: truncate(summary(message), SUMMARY_MAX),
      source: message.monitor.target || "vigil",
      severity: SEVERITY[message.event],
      timestamp: message.occurredAt.toISOString(),
      component: message.monitor.name,
      group: message.monitor.kind,
      ...(message.reason ? { class: message.reason } : {}),
      custom_details: Object.fromEntries(facts(message).map((f) => [f.label, f.value])),
    },
    links: [{ href: message.link, text: `${message.monitor.name} in Vigil` }],
    client: "Vigil",
    client_url: publicUrl,
  };
}

export const pagerduty: Provider<"pagerduty"> = {
  type: "pagerduty",
  missingSettings: () => [],
  async send(message, channel, context) {
    const { settings } = context;
    const answer = await post(settings.pagerdutyEventsUrl, { json: eventOf(message, channel.config.integrationKey, settings.publicUrl), operatorEndpoint: true }, context);
    return { statusCode: answer.status };
  },
};
