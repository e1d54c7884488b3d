import { DeliveryError } from "../src/errors";
import { grafanaOncall } from "../src/providers/grafana-oncall";
import { testMessage } from "../src/test-message";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

interface OnCallBody {
  alert_uid: string;
  title: string;
  state: string;
  message: string;
  link_to_upstream_details: string;
}

const PATH = "/integrations/v1/formatted_webhook/AbC123secret/";
let server: ProviderServer;
let channel: Channel<"grafana_oncall">;

beforeEach(async () => {
  server = await startProviderServer(() => ({ status: 200, body: '"Ok."', headers: { "content-type": "application/json" } }));
  channel = { id: "ch1", name: "ops", type: "grafana_oncall", config: { webhookUrl: `${server.url}${PATH}` } };
});
afterEach(() => server.close());

describe("grafana oncall", () => {
  it.each([
    ["monitor.failed", "alerting"],
    ["monitor.degraded", "alerting"],
    ["monitor.recovered", "ok"],
    ["monitor.certificate_expiring", "alerting"],
    ["monitor.certificate_renewed", "ok"],
    ["slo.burn_rate", "alerting"],
    ["slo.burn_rate_ended", "ok"],
    ["test", "ok"],
  ] as const)("posts a %s message to the formatted webhook with state %s", async (event, state) => {
    const message = sampleMessage(event);
    const delivered = await grafanaOncall.send(message, channel, { settings: settingsFor(server.url) });

    expect(delivered).toEqual({ statusCode: 200 });
    const request = (await server.waitFor(1))[0]!;
    expect(request.method).toBe("POST");
    expect(request.url).toBe(PATH);
    expect(request.headers["content-type"]).toBe("application/json");
    const body = request.json as OnCallBody;
    expect(Object.keys(body).sort()).toEqual(["alert_uid", "link_to_upstream_details", "message", "state", "title"]);
    expect(body.state).toBe(state);
    expect(body.title).toContain("Homepage");
    expect(body.link_to_upstream_details).toBe(message.link);
    expectFullWording(body.message, event);
  });

  it("groups an incident's alert, degradation and recovery under one alert_uid", async () => {
    const settings = settingsFor(server.url);
    for (const event of ["monitor.failed", "monitor.degraded", "monitor.recovered"] as const) {
      await grafanaOncall.send(sampleMessage(event), channel, { settings });
    }

    const bodies = (await server.waitFor(3)).map((r) => r.json as OnCallBody);
    expect(bodies.map((b) => b.alert_uid)).toEqual(Array(3).fill("vigil-incident-0194f3b2-inc1"));
    expect(bodies.map((b) => b.state)).toEqual(["alerting", "alerting", "ok"]);
  });

  it("groups an SLO burn and its end under the episode's alert_uid", async () => {
    const settings = settingsFor(server.url);
    for (const event of ["slo.burn_rate", "slo.burn_rate_ended"] as const) await grafanaOncall.send(sampleMessage(event), channel, { settings });
    const bodies = (await server.waitFor(2)).map((r) => r.json as OnCallBody);
    expect(bodies.map((b) => [b.alert_uid, b.state])).toEqual([
      ["vigil-slo-0194f3b2-ep1", "alerting"],
      ["vigil-slo-0194f3b2-ep1", "ok"],
    ]);
  });

  it("gives every test message an alert_uid of its own", async () => {
    const settings = settingsFor(server.url);
    const monitor = { id: "0194f3b2-mon1", name: "Homepage", kind: "http" as const, target: "https://api.example.com", status: "active" as const };
    await grafanaOncall.send(testMessage(channel, monitor, settings), channel, { settings });
    await grafanaOncall.send(testMessage(channel, monitor, settings), channel, { settings });

    const [first, second] = (await server.waitFor(2)).map((r) => r.json as OnCallBody) as [OnCallBody, OnCallBody];
    expect(first.alert_uid).not.toBe(second.alert_uid);
    expect(first.alert_uid).not.toContain("incident");
    expect([first.state, second.state]).toEqual(["ok", "ok"]);
  });

  it("turns OnCall's 400 into a final DeliveryError with the status and the answer", async () => {
    server.answerWith(() => ({ status: 400, body: "Integration type does not match" }));

    const error = await grafanaOncall.send(sampleMessage("monitor.failed"), channel, { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 400 });
    expect((error as DeliveryError).message).toContain("Integration type does not match");
    expect((error as DeliveryError).message).not.toContain("AbC123secret");
  });
});
