import type { ProviderType } from "@vigil/domain";
import { discord } from "./providers/discord";
import { email } from "./providers/email";
import { googleChat } from "./providers/google-chat";
import { grafanaOncall } from "./providers/grafana-oncall";
import { ntfy } from "./providers/ntfy";
import { opsgenie } from "./providers/opsgenie";
import { pagerduty } from "./providers/pagerduty";
import { slack } from "./providers/slack";
import { sms } from "./providers/sms";
import { telegram } from "./providers/telegram";
import { webhook } from "./providers/webhook";
import { whatsapp } from "./providers/whatsapp";
import type { Provider } from "./types";

/** Every provider, by the contract's provider_type. */
export const PROVIDERS: { [T in ProviderType]: Provider<T> } = {
  discord,
  email,
  slack,
  pagerduty,
  opsgenie,
  webhook,
  telegram,
  sms,
  whatsapp,
  google_chat: googleChat,
  grafana_oncall: grafanaOncall,
  ntfy,
};

export const providerOf = <T extends ProviderType>(type: T): Provider<T> => PROVIDERS[type];
