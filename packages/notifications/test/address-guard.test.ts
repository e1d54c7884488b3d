/**
 * The SSRF guard on deliveries: a channel's own URL (webhooks, Slack-style
 * webhook URLs, an ntfy server) goes through the deployment's AddressPolicy;
 * the provider API bases the operator configures do not. The doubles are on
 * loopback, so the guard is left on (ALLOW_PRIVATE_TARGETS=false) and
 * 127.0.0.1 is opened or not with ALLOWED_TARGET_CIDRS.
 */
import { DeliveryError } from "../src/errors";
import { ntfy } from "../src/providers/ntfy";
import { pagerduty } from "../src/providers/pagerduty";
import { slack } from "../src/providers/slack";
import { newSigningSecret, webhook } from "../src/providers/webhook";
import { plainText, summary, title } from "../src/text";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer } from "./support/provider-server";

const GUARDED = { ALLOW_PRIVATE_TARGETS: "false" };
const REFUSED = "refused to connect to 127.0.0.1: loopback address; set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it";

let server: ProviderServer;
beforeEach(async () => {
  server = await startProviderServer(() => ({ status: 200 }));
});
afterEach(() => server.close());

const webhookTo = (endpoint: string): Channel<"webhook"> => ({
  id: "ch1",
  name: "ops",
  type: "webhook",
  config: { endpoint, headers: [] },
  signingSecret: newSigningSecret(),
});

async function failureOf(send: Promise<unknown>): Promise<DeliveryError> {
  const error = await send.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

describe("a channel's own URL", () => {
  it("refuses a webhook to a blocked address, for good, without sending anything", async () => {
    const settings = settingsFor(server.url, GUARDED);
    const error = await failureOf(webhook.send(sampleMessage("monitor.failed"), webhookTo(`${server.url}/hook`), { settings }));
    expect(error.message).toBe(`${new URL(server.url).host}: ${REFUSED}`);
    expect(error.retryable).toBe(false);
    expect(error.statusCode).toBeNull();
    expect(server.received).toHaveLength(0);
  });

  it("refuses a webhook URL whose name resolves to a blocked address", async () => {
    const settings = settingsFor(server.url, GUARDED);
    const endpoint = `http://localhost:${new URL(server.url).port}/hook`;
    const error = await failureOf(webhook.send(sampleMessage("monitor.failed"), webhookTo(endpoint), { settings }));
    expect(error.message).toMatch(/^localhost:\d+: refused to connect to (127\.0\.0\.1|::1): loopback address; /);
    expect(error.retryable).toBe(false);
    expect(server.received).toHaveLength(0);
  });

  it("refuses Slack-style webhook URLs and ntfy servers the same way", async () => {
    const settings = settingsFor(server.url, GUARDED);
    const slackChannel: Channel<"slack"> = { id: "s", name: "s", type: "slack", config: { webhookUrl: `${server.url}/slack` } };
    expect((await failureOf(slack.send(sampleMessage("monitor.failed"), slackChannel, { settings }))).retryable).toBe(false);
    const ntfyChannel: Channel<"ntfy"> = { id: "n", name: "n", type: "ntfy", config: { topic: "t", serverUrl: server.url, token: "" } };
    expect((await failureOf(ntfy.send(sampleMessage("monitor.failed"), ntfyChannel, { settings }))).message).toContain(REFUSED);
    expect(server.received).toHaveLength(0);
  });

  it("delivers to an address ALLOWED_TARGET_CIDRS opens", async () => {
    const settings = settingsFor(server.url, { ...GUARDED, ALLOWED_TARGET_CIDRS: "127.0.0.1/32" });
    expect(await webhook.send(sampleMessage("monitor.failed"), webhookTo(`${server.url}/hook`), { settings })).toEqual({ statusCode: 200 });
    expect(server.received).toHaveLength(1);
  });
});

describe("the operator's provider API bases", () => {
  it("are trusted: PagerDuty's events URL on loopback is reached with the guard on", async () => {
    const settings = settingsFor(server.url, GUARDED);
    const channel: Channel<"pagerduty"> = { id: "p", name: "p", type: "pagerduty", config: { integrationKey: "key" } };
    expect(await pagerduty.send(sampleMessage("monitor.failed"), channel, { settings })).toEqual({ statusCode: 200 });
  });
});

describe("an alert for a blocked target", () => {
  it("says the deployment refused to reach it rather than calling it down", () => {
    const message = sampleMessage("monitor.failed", { error: REFUSED, reason: "blocked", statusCode: null });
    expect(title(message)).toBe("BLOCKED: Homepage");
    expect(summary(message)).toContain("cannot be checked: this deployment refuses to connect to its address");
    expect(summary(message)).not.toContain("is down");
    expect(plainText(message)).toContain(`${REFUSED} (blocked)`);
  });
});
