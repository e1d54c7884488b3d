import { DeliveryError } from "../src/errors";
import { opsgenie } from "../src/providers/opsgenie";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer, type Received } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

interface OpsgenieAlert {
  message: string;
  alias: string;
  description: string;
  priority: string;
  tags: string[];
  details: Record<string, string>;
  source: string;
  entity: string;
}

const API_KEY = "11111111-2222-3333-4444-555555555555";
const ACCEPTED = { status: 202, body: { result: "Request will be processed", took: 0.302, requestId: "43a29c5c-3dbf-4fa4-9c26-f4f71023e120" } };
let server: ProviderServer;

beforeEach(async () => {
  server = await startProviderServer(() => ACCEPTED);
});
afterEach(() => server.close());

const channelIn = (region: "us" | "eu"): Channel<"opsgenie"> => ({ id: "ch1", name: "ops", type: "opsgenie", config: { apiKey: API_KEY, region } });

/** Checks what every Opsgenie request carries: POST, the GenieKey and a JSON body. */
function expectOpsgenieRequest(request: Received, path: string): void {
  expect(request.method).toBe("POST");
  expect(request.url).toBe(path);
  expect(request.headers.authorization).toBe(`GenieKey ${API_KEY}`);
  expect(request.headers["content-type"]).toBe("application/json");
}

describe("opsgenie", () => {
  it("creates a P1 alert, a P3 alert under the same alias, and closes that alias on recovery", async () => {
    const settings = settingsFor(server.url);
    for (const event of ["monitor.failed", "monitor.degraded", "monitor.recovered"] as const) {
      expect(await opsgenie.send(sampleMessage(event), channelIn("us"), { settings })).toEqual({ statusCode: 202 });
    }

    const [failed, degraded, recovered] = server.received;
    expectOpsgenieRequest(failed!, "/v2/alerts");
    const alert = failed!.json as OpsgenieAlert;
    expect(alert).toMatchObject({ alias: "vigil-incident-0194f3b2-inc1", priority: "P1", source: "Vigil", entity: "Homepage" });
    expect(alert.tags).toEqual(expect.arrayContaining(["vigil", "http", "down"]));
    expect(alert.message.length).toBeLessThanOrEqual(130);
    expect(alert.message).toContain("Homepage");
    expectFullWording(alert.description, "monitor.failed");
    expect(alert.details).toMatchObject({ "Status code": "503", Latency: "120 ms", Link: "https://vigil.example/monitors/0194f3b2-mon1" });
    for (const value of Object.values(alert.details)) expect(typeof value).toBe("string");

    expectOpsgenieRequest(degraded!, "/v2/alerts");
    expect(degraded!.json).toMatchObject({ alias: alert.alias, priority: "P3" });
    expectFullWording((degraded!.json as OpsgenieAlert).description, "monitor.degraded");

    expectOpsgenieRequest(recovered!, "/v2/alerts/vigil-incident-0194f3b2-inc1/close?identifierType=alias");
    const close = recovered!.json as { source: string; note: string };
    expect(close.source).toBe("Vigil");
    expectFullWording(close.note, "monitor.recovered");
  });

  it("acknowledges the incident's alert by alias when the incident is acknowledged in Vigil", async () => {
    const acknowledgement = { by: "api_key:key1", at: new Date("2026-05-01T10:05:00.000Z") };
    expect(await opsgenie.send(sampleMessage("incident.acknowledged", { acknowledgement }), channelIn("us"), { settings: settingsFor(server.url) })).toEqual({
      statusCode: 202,
    });
    const [request] = server.received;
    expectOpsgenieRequest(request!, "/v2/alerts/vigil-incident-0194f3b2-inc1/acknowledge?identifierType=alias");
    expect(request!.json).toMatchObject({ source: "Vigil", note: expect.stringContaining("by api_key:key1") });
  });

  it("URL-encodes the alias in the close path", async () => {
    const recovered = sampleMessage("monitor.recovered");
    const message = sampleMessage("monitor.recovered", { incident: { ...recovered.incident!, id: "a/b c?d" } });

    await opsgenie.send(message, channelIn("us"), { settings: settingsFor(server.url) });

    expect(server.received[0]!.url).toBe("/v2/alerts/vigil-incident-a%2Fb%20c%3Fd/close?identifierType=alias");
  });

  it("sends an eu channel's alerts and closes to the EU API", async () => {
    const settings = settingsFor(server.url);

    await opsgenie.send(sampleMessage("monitor.failed"), channelIn("eu"), { settings });
    await opsgenie.send(sampleMessage("monitor.recovered"), channelIn("eu"), { settings });

    expectOpsgenieRequest(server.received[0]!, "/eu/v2/alerts");
    expectOpsgenieRequest(server.received[1]!, "/eu/v2/alerts/vigil-incident-0194f3b2-inc1/close?identifierType=alias");
  });

  it("creates an expiring certificate's warning as a P3 alert under the certificate's alias", async () => {
    await opsgenie.send(sampleMessage("monitor.certificate_expiring"), channelIn("us"), { settings: settingsFor(server.url) });

    expectOpsgenieRequest(server.received[0]!, "/v2/alerts");
    const alert = server.received[0]!.json as OpsgenieAlert;
    expect(alert).toMatchObject({ alias: `vigil-certificate-0194f3b2-mon1-${Date.parse("2026-05-11T10:00:00.000Z")}`, priority: "P3" });
    expectFullWording(alert.description, "monitor.certificate_expiring");
  });

  it("closes a certificate's warning by its alias when the certificate is renewed", async () => {
    await opsgenie.send(sampleMessage("monitor.certificate_renewed"), channelIn("us"), { settings: settingsFor(server.url) });

    expectOpsgenieRequest(server.received[0]!, `/v2/alerts/vigil-certificate-0194f3b2-mon1-${Date.parse("2026-05-11T10:00:00.000Z")}/close?identifierType=alias`);
    expectFullWording((server.received[0]!.json as { note: string }).note, "monitor.certificate_renewed");
  });

  it("opens an SLO burn as a P2 alert under the episode's alias and closes it by that alias when the episode ends", async () => {
    await opsgenie.send(sampleMessage("slo.burn_rate"), channelIn("us"), { settings: settingsFor(server.url) });
    await opsgenie.send(sampleMessage("slo.burn_rate_ended"), channelIn("us"), { settings: settingsFor(server.url) });

    expectOpsgenieRequest(server.received[0]!, "/v2/alerts");
    expect(server.received[0]!.json as OpsgenieAlert).toMatchObject({ alias: "vigil-slo-0194f3b2-ep1", priority: "P2" });
    expectFullWording((server.received[0]!.json as OpsgenieAlert).description, "slo.burn_rate");
    expectOpsgenieRequest(server.received[1]!, "/v2/alerts/vigil-slo-0194f3b2-ep1/close?identifierType=alias");
    expectFullWording((server.received[1]!.json as { note: string }).note, "slo.burn_rate_ended");
  });

  it("creates a test as a P5 alert under an alias of its own", async () => {
    const message = sampleMessage("test");

    await opsgenie.send(message, channelIn("us"), { settings: settingsFor(server.url) });

    expect(server.received).toHaveLength(1);
    expectOpsgenieRequest(server.received[0]!, "/v2/alerts");
    const alert = server.received[0]!.json as OpsgenieAlert;
    expect(alert).toMatchObject({ alias: `vigil-${message.id}`, priority: "P5" });
    expectFullWording(alert.description, "test");
  });

  it("turns Opsgenie's 422 into a final DeliveryError carrying the status and Opsgenie's answer", async () => {
    server.answerWith(() => ({
      status: 422,
      body: { message: "Request body is not processable. Please check the errors.", errors: { message: "Message can not be empty." }, took: 0.001, requestId: "r1" },
    }));

    const error = await opsgenie.send(sampleMessage("monitor.failed"), channelIn("us"), { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 422 });
    expect((error as DeliveryError).message).toContain("Request body is not processable");
    expect((error as DeliveryError).message).not.toContain(API_KEY);
  });

  it("turns a 429 into a retryable DeliveryError with the wait Opsgenie asked for", async () => {
    server.answerWith(() => ({
      status: 429,
      body: { message: "You are making too many requests!", took: 0, requestId: "r2" },
      headers: { "retry-after": "12" },
    }));

    const error = await opsgenie.send(sampleMessage("monitor.failed"), channelIn("us"), { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: true, statusCode: 429, retryAfterMs: 12_000 });
  });

  it("needs no deployment settings: both API URLs have defaults", () => {
    expect(opsgenie.missingSettings(settingsFor(server.url, { OPSGENIE_API_URL: "", OPSGENIE_EU_API_URL: "" }))).toEqual([]);
  });
});
