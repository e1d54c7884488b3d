import type { DeliveryEvent } from "@vigil/domain";
import { post } from "../../http";
import { plainText, title } from "../../text";
import type { Provider } from "../../types";

const DEFAULT_SERVER = "https://ntfy.sh";

/** ntfy priorities: 5 max (a failure), 4 high, 3 default. */
const PRIORITY: Record<DeliveryEvent, number> = {
  "monitor.failed": 5,
  "monitor.degraded": 4,
  "monitor.recovered": 3,
  "incident.acknowledged": 3,
  "monitor.certificate_expiring": 4,
  "monitor.certificate_renewed": 3,
  "slo.burn_rate": 4,
  "slo.burn_rate_ended": 3,
  test: 3,
};

/** Emoji short codes: ntfy shows them as an emoji before the title. */
const TAGS: Record<DeliveryEvent, string[]> = {
  "monitor.failed": ["rotating_light"],
  "monitor.degraded": ["warning"],
  "monitor.recovered": ["white_check_mark"],
  "incident.acknowledged": ["eyes"],
  "monitor.certificate_expiring": ["lock"],
  "monitor.certificate_renewed": ["white_check_mark"],
  "slo.burn_rate": ["fire"],
  "slo.burn_rate_ended": ["white_check_mark"],
  test: ["test_tube"],
};

/** A JSON publish goes to the server's root, with the topic in the body. */
const publishUrl = (serverUrl: string) => `${(serverUrl || DEFAULT_SERVER).replace(/\/+$/, "")}/`;

export const ntfy: Provider<"ntfy"> = {
  type: "ntfy",
  missingSettings: () => [],
  async send(message, channel, context) {
    const { topic, serverUrl, token } = channel.config;
    const payload = {
      topic,
      title: title(message),
      message: plainText(message),
      priority: PRIORITY[message.event],
      tags: TAGS[message.event],
      click: message.link,
    };
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const answer = await post(publishUrl(serverUrl), { json: payload, headers }, context);
    return { statusCode: answer.status };
  },
};
