import { DeliveryError } from "../src/errors";
import { ntfy } from "../src/providers/ntfy";
import type { Channel } from "../src/types";
import { sampleMessage, settingsFor } from "./support/messages";
import { startProviderServer, type ProviderServer } from "./support/provider-server";
import { expectFullWording } from "./support/wording";

interface NtfyBody {
  topic: string;
  title: string;
  message: string;
  priority: number;
  tags: string[];
  click: string;
}

let server: ProviderServer;

beforeEach(async () => {
  server = await startProviderServer((request) => ({
    status: 200,
    body: { id: "sPs71M8A2T", time: 1777629600, event: "message", topic: (request.json as NtfyBody).topic },
  }));
});
afterEach(() => server.close());

const channelWith = (config: Partial<Channel<"ntfy">["config"]>): Channel<"ntfy"> => ({
  id: "ch1",
  name: "ops",
  type: "ntfy",
  config: { topic: "vigil-ops", serverUrl: server.url, token: "", ...config },
});

describe("ntfy", () => {
  it.each([
    ["monitor.failed", 5, "rotating_light"],
    ["monitor.degraded", 4, "warning"],
    ["monitor.recovered", 3, "white_check_mark"],
    ["monitor.certificate_expiring", 4, "lock"],
    ["monitor.certificate_renewed", 3, "white_check_mark"],
    ["test", 3, "test_tube"],
  ] as const)("publishes a %s message as JSON to the server root with priority %i and tag %s", async (event, priority, tag) => {
    const message = sampleMessage(event);
    const delivered = await ntfy.send(message, channelWith({ token: "tk_secret" }), { settings: settingsFor(server.url) });

    expect(delivered).toEqual({ statusCode: 200 });
    const request = (await server.waitFor(1))[0]!;
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers.authorization).toBe("Bearer tk_secret");
    const body = request.json as NtfyBody;
    expect(body.topic).toBe("vigil-ops");
    expect(body.title).toContain("Homepage");
    expect(body.priority).toBe(priority);
    expect(body.tags).toEqual([tag]);
    expect(body.click).toBe(message.link);
    expectFullWording(body.message, event);
  });

  it("sends no Authorization header when the channel has no token", async () => {
    await ntfy.send(sampleMessage("monitor.failed"), channelWith({ token: "" }), { settings: settingsFor(server.url) });

    const request = (await server.waitFor(1))[0]!;
    expect(request.headers.authorization).toBeUndefined();
  });

  it("publishes to the root of a server that lives under a path", async () => {
    await ntfy.send(sampleMessage("monitor.failed"), channelWith({ serverUrl: `${server.url}/ntfy/` }), { settings: settingsFor(server.url) });

    const request = (await server.waitFor(1))[0]!;
    expect(request.url).toBe("/ntfy/");
  });

  it("turns ntfy's 403 into a final DeliveryError with the status and the answer", async () => {
    server.answerWith(() => ({ status: 403, body: { code: 40301, http: 403, error: "forbidden", link: "https://ntfy.sh/docs/publish/#authentication" } }));

    const error = await ntfy.send(sampleMessage("monitor.failed"), channelWith({ token: "tk_secret" }), { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ retryable: false, statusCode: 403 });
    expect((error as DeliveryError).message).toContain("40301");
    expect((error as DeliveryError).message).not.toContain("tk_secret");
  });

  it("retries after ntfy's 429, which carries no Retry-After", async () => {
    server.answerWith(() => ({ status: 429, body: { code: 42901, http: 429, error: "limit reached: too many requests" } }));

    const error = await ntfy.send(sampleMessage("monitor.failed"), channelWith({}), { settings: settingsFor(server.url) }).catch((e: unknown) => e);

    expect(error).toMatchObject({ retryable: true, statusCode: 429, retryAfterMs: null });
  });
});
