import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { DeliveryError } from "../src/errors";
import { newSigningSecret, webhook } from "../src/providers/webhook";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type Received, type ProviderServer } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

interface Envelope {
  type: string;
  version: number;
  id: string;
  timestamp: string;
  data: Record<string, unknown> & { text: string };
}

const PATH = "/hooks/vigil";
let server: ProviderServer;
let channel: Channel<"webhook">;

beforeEach(async () => {
  server = await startProviderServer(() => ({ status: 200, body: "received" }));
  channel = {
    id: "ch1",
    name: "ops",
    type: "webhook",
    config: {
      endpoint: `${server.url}${PATH}`,
      headers: [
        { key: "Authorization", value: "Bearer receiver-token" },
        { key: "Content-Type", value: "text/plain" },
        { key: "Webhook-Id", value: "forged" },
      ],
    },
    signingSecret: newSigningSecret(),
  };
});
afterEach(() => server.close());

/** What a receiver does with the standardwebhooks library: verify the raw body against the three headers. */
const verifyAs = (secret: string, request: Received) => new Webhook(secret).verify(request.body, request.headers as Record<string, string>);

describe("webhook", () => {
  it.each(["monitor.failed", "monitor.degraded", "monitor.recovered", "monitor.certificate_expiring", "monitor.certificate_renewed", "slo.burn_rate", "slo.burn_rate_ended", "test"] as const)(
    "posts a %s message as a signed Standard Webhooks envelope with the channel's headers",
    async (event) => {
      const message = sampleMessage(event);
      const delivered = await webhook.send(message, channel, { settings: settingsFor(server.url) });

      expect(delivered).toEqual({ statusCode: 200 });
      const request = (await server.waitFor(1))[0]!;
      expect(request.method).toBe("POST");
      expect(request.url).toBe(PATH);
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers.authorization).toBe("Bearer receiver-token");
      expect(request.headers["webhook-id"]).toBe(message.id);
      expect(request.headers["webhook-timestamp"]).toMatch(/^\d+$/);
      expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verifyAs(channel.signingSecret!, request)).toEqual(request.json);
      const envelope = request.json as Envelope;
      expect(envelope).toMatchObject({ type: event, version: 1, id: message.id, timestamp: message.occurredAt.toISOString() });
      expectFullWording(envelope.data.text, event);
    },
  );

  it("documents the failure as a stable, camelCase envelope", async () => {
    await webhook.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) });

    const envelope = (await server.waitFor(1))[0]!.json as Envelope;
    const { text, ...data } = envelope.data;
    expect(typeof text).toBe("string");
    expect(data).toEqual({
      monitor: { id: "0194f3b2-mon1", name: "Homepage", kind: "http", target: "https://api.example.com/health" },
      status: "error",
      incident: { id: "0194f3b2-inc1", startedAt: "2026-05-01T10:00:00.000Z", resolvedAt: null },
      regions: [
        { region: "hostA-ams", status: "error", error: "HTTP 503", reason: "http_status", statusCode: 503, latencyMs: 120 },
        { region: "hostB-fra", status: "error", error: "HTTP 503", reason: "http_status", statusCode: 503, latencyMs: 95 },
      ],
      error: "HTTP 503",
      reason: "http_status",
      statusCode: 503,
      latencyMs: 120,
      durationMs: null,
      link: "https://vigil.example/monitors/0194f3b2-mon1",
      ackLink: null,
      reminder: null,
      acknowledgement: null,
      certificate: null,
      slo: null,
    });
  });

  it("carries an SLO burn's objective, burn rates and budget left, outside any incident", async () => {
    await webhook.send(sampleMessage("slo.burn_rate"), channel, { settings: settingsFor(server.url) });
    const envelope = server.received.at(-1)!.json as { type: string; data: Record<string, unknown> };
    expect(envelope.type).toBe("slo.burn_rate");
    expect(envelope.data).toMatchObject({
      incident: null,
      slo: { episodeId: "0194f3b2-ep1", objective: "availability", target: 99.9, thresholdMs: 0, burnRate1h: 15.2, burnRate6h: 7.1, budgetRemaining: 62.5 },
    });
  });

  it("carries an expiring certificate's dates, issuer, names, region and days left, outside any incident", async () => {
    await webhook.send(sampleMessage("monitor.certificate_expiring"), channel, { settings: settingsFor(server.url) });

    const envelope = (await server.waitFor(1))[0]!.json as Envelope & { data: Record<string, unknown> };
    expect(envelope.type).toBe("monitor.certificate_expiring");
    expect(envelope.data.incident).toBeNull();
    expect(envelope.data.certificate).toEqual({
      notAfter: "2026-06-01T00:00:00.000Z",
      chainNotAfter: "2026-05-11T10:00:00.000Z",
      issuer: "C=US, O=Test CA, CN=Test Intermediate",
      subjectAltNames: ["DNS:api.example.com", "DNS:www.example.com"],
      daysLeft: 10,
      region: "hostA-ams",
      renews: null,
    });
  });

  it("carries a renewed certificate and the expiry of the one it renews", async () => {
    await webhook.send(sampleMessage("monitor.certificate_renewed"), channel, { settings: settingsFor(server.url) });

    const envelope = (await server.waitFor(1))[0]!.json as Envelope & { data: Record<string, unknown> };
    expect(envelope.type).toBe("monitor.certificate_renewed");
    expect(envelope.data.incident).toBeNull();
    expect(envelope.data.certificate).toMatchObject({ chainNotAfter: "2026-08-09T10:00:00.000Z", daysLeft: 90, renews: "2026-05-11T10:00:00.000Z" });
  });

  it("carries an alert's acknowledgement link, a reminder's number and how long the incident lasted, and who acknowledged it", async () => {
    const settings = settingsFor(server.url);
    const ackLink = "https://vigil.example/v1/incidents/ack/token-of-this-message";
    await webhook.send(sampleMessage("monitor.failed", { id: "evt-reminder", reminder: 2, durationMs: 1_200_000, ackLink }), channel, { settings });
    const at = new Date("2026-05-01T10:25:00.000Z");
    await webhook.send(sampleMessage("incident.acknowledged", { acknowledgement: { by: "user:ops@example.com", at } }), channel, { settings });

    const [reminder, acknowledged] = (await server.waitFor(2)).map((r) => r.json as Envelope & { data: Record<string, unknown> });
    expect(reminder).toMatchObject({ type: "monitor.failed", data: { reminder: 2, durationMs: 1_200_000, ackLink } });
    expect(reminder!.data.text).toContain("Homepage (https://api.example.com/health) is still down in hostA-ams, hostB-fra for 20m: HTTP 503 (http_status)");
    expect(reminder!.data.text).toContain(`Acknowledge: ${ackLink}`);
    expect(acknowledged).toMatchObject({
      type: "incident.acknowledged",
      data: { incident: { id: "0194f3b2-inc1" }, acknowledgement: { by: "user:ops@example.com", at: at.toISOString() }, ackLink: null },
    });
    expect(acknowledged!.data.text).toContain("Acknowledged: 2026-05-01 10:25:00 UTC by user:ops@example.com");
  });

  it("tells the recovery's end and duration, and a test message's missing incident", async () => {
    const settings = settingsFor(server.url);
    await webhook.send(sampleMessage("monitor.recovered"), channel, { settings });
    await webhook.send(sampleMessage("test"), channel, { settings });

    const [recovery, test] = (await server.waitFor(2)).map((r) => (r.json as Envelope).data);
    expect(recovery).toMatchObject({
      status: "active",
      incident: { id: "0194f3b2-inc1", startedAt: "2026-05-01T10:00:00.000Z", resolvedAt: "2026-05-01T10:04:10.000Z" },
      durationMs: 250_000,
    });
    expect(test).toMatchObject({ incident: null, regions: [], error: null, statusCode: null });
  });

  it("signs so that another secret does not verify", async () => {
    await webhook.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) });

    const request = (await server.waitFor(1))[0]!;
    expect(() => verifyAs(newSigningSecret(), request)).toThrow(WebhookVerificationError);
  });

  it("keeps webhook-id across retries, so receivers can drop duplicates", async () => {
    server.answerWith(() => ({ status: 503, body: "busy" }));
    const message = sampleMessage("monitor.failed");
    const settings = settingsFor(server.url);

    await expect(webhook.send(message, channel, { settings })).rejects.toMatchObject({ retryable: true, statusCode: 503 });
    server.answerWith(() => ({ status: 204 }));
    await expect(webhook.send(message, channel, { settings })).resolves.toEqual({ statusCode: 204 });

    const [first, second] = (await server.waitFor(2)) as [Received, Received];
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(second.body).toBe(first.body);
  });

  it.each([
    ["missing", null],
    ["unreadable", "whsec_not base64!"],
  ])("refuses to send when the signing secret is %s, as a final error", async (_, signingSecret) => {
    const error = await webhook.send(sampleMessage("monitor.failed"), { ...channel, signingSecret }, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: null });
    expect(server.received).toHaveLength(0);
  });

  it("turns a receiver's 410 into a final DeliveryError with the status and the answer", async () => {
    server.answerWith(() => ({ status: 410, body: "endpoint disabled" }));

    const error = await webhook.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 410 });
    expect((error as DeliveryError).message).toContain("endpoint disabled");
  });
});

describe("newSigningSecret", () => {
  it("makes a whsec_ secret of 32 random bytes that standardwebhooks accepts", () => {
    const secret = newSigningSecret();

    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
    expect(() => new Webhook(secret)).not.toThrow();
  });
});
