import { createHmac } from "node:crypto";
import { createServer } from "node:net";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { MonitorService, Periodicity } from "@vigil/proto";
import type { NotificationService } from "@vigil/proto/notification";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { EVERY_PROVIDER_ENV, VALID_BLOCKS, channel } from "./support/channels";

const errorOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(BACKENDS)("SendTestNotification and deliveries on %s", (backend) => {
  let api: TestApi;
  let provider: ProviderServer;
  let client: Client<typeof NotificationService>;
  let monitorId: string;

  beforeAll(async () => {
    provider = await startProviderServer();
    api = await startTestApi(backend, { providerEnv: EVERY_PROVIDER_ENV });
    const key = (await api.workspace()).write.key;
    client = api.notificationClient(key);
    const monitors: Client<typeof MonitorService> = api.client(key);
    const monitor = { name: "Checkout API", uri: "shop.example.com:443", periodicity: Periodicity.PERIODICITY_1M };
    monitorId = (await monitors.createTCPMonitor({ monitor })).monitor!.id;
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
  });
  beforeEach(() => provider.answerWith(() => ({ status: 200, body: "ok" })));

  const slackChannel = async (path: string, monitorIds: string[] = [monitorId]) =>
    (await client.createNotification({ notification: channel("slack", { webhookUrl: `${provider.url}${path}` }, { monitorIds }) })).notification!.id;
  const newRequests = async (before: number) => (await provider.waitFor(before + 1)).slice(before);

  it("sends a test message naming the first linked monitor now, and records it as delivered", async () => {
    const id = await slackChannel("/services/T1/B1/delivered");
    const before = provider.received.length;
    expect(await client.sendTestNotification({ id })).toMatchObject({ success: true, errorMessage: "" });
    const [request] = await newRequests(before);
    expect(request).toMatchObject({ method: "POST", url: "/services/T1/B1/delivered" });
    expect((request!.json as { text: string }).text).toBe("Checkout API (shop.example.com:443) is a test: Vigil can reach this channel");

    const { deliveries } = await client.listNotificationDeliveries({ id });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ event: "test", monitorId, incidentId: "", outcome: "delivered", attempts: 1, statusCode: 200, error: "" });
    expect(deliveries[0]!.eventAt).toBeDefined();
    expect(deliveries[0]!.createdAt).toBeDefined();
    expect(deliveries[0]!.completedAt).toBeDefined();
  });

  it("reports the provider's refusal with its status and answer, and records the failed delivery", async () => {
    const id = await slackChannel("/services/T1/B1/gone");
    provider.answerWith(() => ({ status: 404, body: "channel_not_found" }));
    const answer = await client.sendTestNotification({ id });
    expect(answer.success).toBe(false);
    expect(answer.errorMessage).toContain("HTTP 404: channel_not_found");
    // The webhook URL is a secret: only its host may be named.
    expect(answer.errorMessage).not.toContain("/services/");
    const [delivery] = (await client.listNotificationDeliveries({ id })).deliveries;
    expect(delivery).toMatchObject({ event: "test", outcome: "failed", attempts: 1, statusCode: 404, error: answer.errorMessage });
    expect(delivery!.completedAt).toBeDefined();
  });

  it("reports a provider it cannot reach, with status code 0", async () => {
    const port = await closedPort();
    const id = (await client.createNotification({ notification: channel("discord", { webhookUrl: `http://127.0.0.1:${port}/api/webhooks/1/x` }) }))
      .notification!.id;
    const answer = await client.sendTestNotification({ id });
    expect(answer.success).toBe(false);
    expect(answer.errorMessage).toContain(`127.0.0.1:${port}`);
    expect((await client.listNotificationDeliveries({ id })).deliveries[0]).toMatchObject({ outcome: "failed", statusCode: 0, error: answer.errorMessage });
  });

  it("names the channel itself when no monitor is linked", async () => {
    const created = await client.createNotification({ notification: channel("slack", { webhookUrl: `${provider.url}/services/T1/B1/alone` }, { name: "On call" }) });
    const before = provider.received.length;
    expect((await client.sendTestNotification({ id: created.notification!.id })).success).toBe(true);
    const [request] = await newRequests(before);
    expect((request!.json as { text: string }).text).toMatch(/^On call \(.*\) is a test/);
    expect((await client.listNotificationDeliveries({ id: created.notification!.id })).deliveries[0]!.monitorId).toBe("");
  });

  it("sends with the stored secret, not its redacted form", async () => {
    const token = "tk_0123456789abcdefghij";
    const created = await client.createNotification({ notification: channel("ntfy", { topic: "vigil-alerts", serverUrl: provider.url, token }) });
    const before = provider.received.length;
    expect((await client.sendTestNotification({ id: created.notification!.id })).success).toBe(true);
    const [request] = await newRequests(before);
    expect(request!.headers.authorization).toBe(`Bearer ${token}`);
    expect(request!.json).toMatchObject({ topic: "vigil-alerts" });
  });

  it("signs a webhook's test message with the signing secret returned at creation", async () => {
    const { notification, signingSecret } = await client.createNotification({
      notification: channel("webhook", { endpoint: `${provider.url}/hook`, headers: [{ key: "x-team", value: "ops" }] }, { monitorIds: [monitorId] }),
    });
    const before = provider.received.length;
    expect((await client.sendTestNotification({ id: notification!.id })).success).toBe(true);
    const [request] = await newRequests(before);
    const { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature } = request!.headers;
    const key = Buffer.from(signingSecret.slice("whsec_".length), "base64");
    const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${request!.body}`).digest("base64");
    expect(signature).toBe(`v1,${expected}`);
    expect(request!.headers["x-team"]).toBe("ops");
    expect(request!.json).toMatchObject({ type: "test", data: { monitor: { id: monitorId, name: "Checkout API" } } });
  });

  it("lists a channel's deliveries newest first, up to the limit", async () => {
    const id = await slackChannel("/services/T1/B1/history");
    const other = await slackChannel("/services/T1/B1/other");
    await client.sendTestNotification({ id });
    provider.answerWith(() => ({ status: 500, body: "rollup_error" }));
    await client.sendTestNotification({ id });
    provider.answerWith(() => ({ status: 200, body: "ok" }));
    await client.sendTestNotification({ id });
    await client.sendTestNotification({ id: other });

    const all = (await client.listNotificationDeliveries({ id })).deliveries;
    expect(all.map((d) => [d.outcome, d.statusCode])).toEqual([
      ["delivered", 200],
      ["failed", 500],
      ["delivered", 200],
    ]);
    expect((await client.listNotificationDeliveries({ id, limit: 1 })).deliveries).toEqual(all.slice(0, 1));
    expect((await client.listNotificationDeliveries({ id, limit: 100 })).deliveries).toEqual(all);
    for (const limit of [0, 101]) {
      const error = await errorOf(client.listNotificationDeliveries({ id, limit }));
      expect([error?.code, error?.rawMessage]).toEqual([Code.InvalidArgument, "limit: must be an integer from 1 to 100"]);
    }
  });

  it("answers not_found for an unknown channel and invalid_argument without an id", async () => {
    for (const call of [client.sendTestNotification({ id: "no-such-channel" }), client.listNotificationDeliveries({ id: "no-such-channel" })]) {
      expect((await errorOf(call))?.code).toBe(Code.NotFound);
    }
    expect((await errorOf(client.sendTestNotification({ id: "" })))?.rawMessage).toBe("id: is required");
  });
});

describe.each(BACKENDS)("providers the deployment is not configured for, on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof NotificationService>;
  let workspaceId: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    const keys = await api.workspace();
    client = api.notificationClient(keys.write.key);
    workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
  });
  afterAll(() => api.close());

  const unconfigured = [
    { type: "telegram", missing: "TELEGRAM_BOT_TOKEN" },
    { type: "sms", missing: "TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_SMS_FROM" },
    { type: "whatsapp", missing: "TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_WHATSAPP_FROM" },
    { type: "email", missing: "SMTP_URL" },
  ] as const;

  it.each(unconfigured)("refuses to create or switch to a $type channel with failed_precondition naming $missing", async ({ type, missing }) => {
    const slack = (await client.createNotification({ notification: channel("slack") })).notification!;
    const before = await api.db.prisma.notificationChannel.findMany({ orderBy: { id: "asc" } });
    const message = `this deployment is not configured for ${type} channels: set ${missing}`;
    for (const call of [
      client.createNotification({ notification: channel(type) }),
      client.updateNotification({ id: slack.id, notification: channel(type) }),
    ]) {
      const error = await errorOf(call);
      expect([error?.code, error?.rawMessage]).toEqual([Code.FailedPrecondition, message]);
    }
    expect(await api.db.prisma.notificationChannel.findMany({ orderBy: { id: "asc" } })).toEqual(before);
  });

  it("reports a broken rule before a missing setting", async () => {
    const error = await errorOf(client.createNotification({ notification: channel("telegram", { chatId: "" }) }));
    expect([error?.code, error?.rawMessage]).toEqual([Code.InvalidArgument, "notification.telegram.chatId: must not be empty"]);
  });

  it("lets a channel that outlived its provider's settings be renamed and deleted, and refuses to test it without trying", async () => {
    // Made while the deployment had TELEGRAM_BOT_TOKEN, as the repository stores any validated channel.
    const stored = await api.notifications.repository.create(workspaceId, {
      name: "ops chat",
      provider: { type: "telegram", config: { chatId: VALID_BLOCKS.telegram.chatId as string } },
      signingSecret: null,
    });
    expect((await client.updateNotification({ id: stored.id, notification: { name: "renamed" } })).notification!.name).toBe("renamed");
    const error = await errorOf(client.sendTestNotification({ id: stored.id }));
    expect([error?.code, error?.rawMessage]).toEqual([Code.FailedPrecondition, "this deployment is not configured for telegram channels: set TELEGRAM_BOT_TOKEN"]);
    expect((await client.listNotificationDeliveries({ id: stored.id })).deliveries).toEqual([]);
    expect((await client.deleteNotification({ id: stored.id })).success).toBe(true);
  });
});
