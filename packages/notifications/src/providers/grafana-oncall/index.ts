import { incidentKey } from "../../incident-key";
import { post } from "../../http";
import { plainText, title } from "../../text";
import type { AlertMessage, Provider } from "../../types";

/**
 * OnCall groups alerts by alert_uid and resolves the group on state "ok":
 * failure, degradation and recovery of one incident share the uid, so the
 * recovery resolves the group the failure opened (a certificate's renewal,
 * its warning's). A test message has a uid
 * of its own and state "ok", so it shows up in OnCall already resolved
 * rather than leaving an open alert group behind.
 */
function payloadOf(message: AlertMessage) {
  const alertUid = incidentKey(message);
  const alerting = message.event === "monitor.failed" || message.event === "monitor.degraded" || message.event === "monitor.certificate_expiring" || message.event === "slo.burn_rate";
  return {
    alert_uid: alertUid,
    title: title(message),
    state: alerting ? "alerting" : "ok",
    message: plainText(message),
    link_to_upstream_details: message.link,
  };
}

export const grafanaOncall: Provider<"grafana_oncall"> = {
  type: "grafana_oncall",
  missingSettings: () => [],
  async send(message, channel, context) {
    const answer = await post(channel.config.webhookUrl, { json: payloadOf(message) }, context);
    return { statusCode: answer.status };
  },
};
