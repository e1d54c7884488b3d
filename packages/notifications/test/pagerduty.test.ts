import { DeliveryError } from "../src/errors";
import { pagerduty } from "../src/providers/pagerduty";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

interface PagerDutyEvent {
  routing_key: string;
  event_action: string;
  dedup_key: string;
  payload?: {
    summary: string;
    source: string;
    severity: string;
    timestamp: string;
    component: string;
    custom_details: Record<string, string>;
  };
  links?: { href: string; text: string }[];
  client?: string;
  client_url?: string;
}

const KEY = "0123456789abcdef0123456789abcdef";
const ACCEPTED = { status: 202, body: { status: "success", message: "Event processed", dedup_key: "vigil-incident-0194f3b2-inc1" } };
let server: ProviderServer;
let channel: Channel<"pagerduty">;

beforeEach(async () => {
  server = await startProviderServer(() => ACCEPTED);
  channel = { id: "ch1", name: "on call", type: "pagerduty", config: { integrationKey: KEY } };
});
afterEach(() => server.close());

/** The event as PagerDuty received it, after checking the request line and the content type. */
function eventOf(index: number): PagerDutyEvent {
  const request = server.received[index]!;
  expect(request.method).toBe("POST");
  expect(request.url).toBe("/v2/enqueue");
  expect(request.headers["content-type"]).toBe("application/json");
  return request.json as PagerDutyEvent;
}

/** What a responder reads on the alert: the summary and the custom details as "Label: value" lines. */
const shownText = (event: PagerDutyEvent) =>
  [event.payload!.summary, ...Object.entries(event.payload!.custom_details).map(([label, value]) => `${label}: ${value}`)].join("\n");

describe("pagerduty", () => {
  it("acknowledges the incident's dedup_key when the incident is acknowledged in Vigil", async () => {
    const acknowledgement = { by: "link", at: new Date("2026-05-01T10:05:00.000Z") };
    expect(await pagerduty.send(sampleMessage("incident.acknowledged", { acknowledgement }), channel, { settings: settingsFor(server.url) })).toEqual({ statusCode: 202 });
    expect(eventOf(0)).toEqual({ routing_key: KEY, event_action: "acknowledge", dedup_key: "vigil-incident-0194f3b2-inc1" });
  });

  it("triggers a failure as critical, a degradation as warning under the same dedup_key, and resolves that key on recovery", async () => {
    const settings = settingsFor(server.url);
    for (const event of ["monitor.failed", "monitor.degraded", "monitor.recovered"] as const) {
      expect(await pagerduty.send(sampleMessage(event), channel, { settings })).toEqual({ statusCode: 202 });
    }

    const [failed, degraded, recovered] = [eventOf(0), eventOf(1), eventOf(2)];
    expect(failed).toMatchObject({
      routing_key: KEY,
      event_action: "trigger",
      dedup_key: "vigil-incident-0194f3b2-inc1",
      payload: {
        source: "https://api.example.com/health",
        severity: "critical",
        timestamp: "2026-05-01T10:00:00.000Z",
        component: "Homepage",
      },
      links: [{ href: "https://vigil.example/monitors/0194f3b2-mon1", text: "Homepage in Vigil" }],
      client: "Vigil",
      client_url: "https://vigil.example",
    });
    expectFullWording(shownText(failed), "monitor.failed");
    expect(degraded).toMatchObject({ event_action: "trigger", dedup_key: failed.dedup_key, payload: { severity: "warning" } });
    expectFullWording(shownText(degraded), "monitor.degraded");
    expect(recovered).toEqual({ routing_key: KEY, event_action: "resolve", dedup_key: failed.dedup_key });
  });

  it("triggers a test as info under a dedup_key of its own and sends nothing after it", async () => {
    const message = sampleMessage("test");

    await pagerduty.send(message, channel, { settings: settingsFor(server.url) });

    expect(server.received).toHaveLength(1);
    const test = eventOf(0);
    expect(test).toMatchObject({ event_action: "trigger", dedup_key: `vigil-${message.id}`, payload: { severity: "info" } });
    expect(test.dedup_key).not.toContain("incident");
    expectFullWording(shownText(test), "test");
  });

  it("triggers the warnings about one certificate as warning under one dedup_key of that certificate", async () => {
    const tenDays = sampleMessage("monitor.certificate_expiring");
    const sevenDays = sampleMessage("monitor.certificate_expiring", { id: "evt-7", certificate: { ...tenDays.certificate!, daysLeft: 7 } });

    await pagerduty.send(tenDays, channel, { settings: settingsFor(server.url) });
    await pagerduty.send(sevenDays, channel, { settings: settingsFor(server.url) });

    const [first, second] = [eventOf(0), eventOf(1)];
    expect(first).toMatchObject({ event_action: "trigger", payload: { severity: "warning" } });
    expect(first.dedup_key).toBe(`vigil-certificate-0194f3b2-mon1-${Date.parse("2026-05-11T10:00:00.000Z")}`);
    expect(second.dedup_key).toBe(first.dedup_key);
    expectFullWording(shownText(first), "monitor.certificate_expiring");
  });

  it("resolves a certificate's warning when the certificate is renewed", async () => {
    await pagerduty.send(sampleMessage("monitor.certificate_expiring"), channel, { settings: settingsFor(server.url) });
    await pagerduty.send(sampleMessage("monitor.certificate_renewed"), channel, { settings: settingsFor(server.url) });

    const [warning, renewal] = [eventOf(0), eventOf(1)];
    expect(renewal).toEqual({ routing_key: channel.config.integrationKey, event_action: "resolve", dedup_key: warning.dedup_key });
  });

  it("triggers an SLO's burn as an error and resolves it under the same key when the episode ends", async () => {
    const start = server.received.length;
    await pagerduty.send(sampleMessage("slo.burn_rate"), channel, { settings: settingsFor(server.url) });
    await pagerduty.send(sampleMessage("slo.burn_rate_ended"), channel, { settings: settingsFor(server.url) });
    const [burn, ended] = [eventOf(start), eventOf(start + 1)];
    expect(burn).toMatchObject({ event_action: "trigger", dedup_key: "vigil-slo-0194f3b2-ep1", payload: { severity: "error" } });
    expect(burn.payload?.summary).toBe("Homepage (https://api.example.com/health) burns its error budget too fast: availability objective 99.9 %, burn rate 15.2x over 1 h and 7.1x over 6 h, 62.5 % of the budget left");
    expect(ended).toEqual({ routing_key: channel.config.integrationKey, event_action: "resolve", dedup_key: burn.dedup_key });
  });

  it("cuts the summary to PagerDuty's 1024 characters", async () => {
    const message = sampleMessage("monitor.failed", { error: "x".repeat(3000) });

    await pagerduty.send(message, channel, { settings: settingsFor(server.url) });

    expect(eventOf(0).payload!.summary.length).toBeLessThanOrEqual(1024);
  });

  it("turns PagerDuty's 400 into a final DeliveryError carrying the status and PagerDuty's answer", async () => {
    server.answerWith(() => ({
      status: 400,
      body: { status: "invalid event", message: "Event object is invalid", errors: ["Length of 'routing_key' is incorrect"] },
    }));

    const error = await pagerduty.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 400 });
    expect((error as DeliveryError).message).toContain("Event object is invalid");
    expect((error as DeliveryError).message).toContain("Length of 'routing_key' is incorrect");
  });

  it("turns a 429 into a retryable DeliveryError with the wait PagerDuty asked for", async () => {
    server.answerWith(() => ({
      status: 429,
      body: { status: "throttle", message: "Requests for this service are arriving too quickly" },
      headers: { "retry-after": "30" },
    }));

    const error = await pagerduty.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: true, statusCode: 429, retryAfterMs: 30_000 });
  });

  it("needs no deployment settings: the events URL has a default", () => {
    expect(pagerduty.missingSettings(settingsFor(server.url, { PAGERDUTY_EVENTS_URL: "" }))).toEqual([]);
  });
});
