import { Code } from "@connectrpc/connect";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { BACKENDS, jsonOf, startTestApi, type Protocol, type TestApi, type WorkspaceKeys } from "./support/api";
import { channel } from "./support/channels";
import { reflectedServices } from "./support/reflection";
import { codeOf } from "./support/codes";

describe.each(BACKENDS)("NotificationService access on %s", (backend) => {
  let api: TestApi;
  let provider: ProviderServer;
  let ws: WorkspaceKeys;
  let channelId: string;

  const slack = () => channel("slack", { webhookUrl: `${provider.url}/services/T1/B1/x` });
  /** Everything a refused call could have written. */
  const written = async () => ({
    channels: await api.db.prisma.notificationChannel.findMany({ orderBy: { id: "asc" }, include: { monitors: true } }),
    deliveries: await api.db.prisma.notificationDelivery.count(),
    requests: provider.received.length,
  });

  beforeAll(async () => {
    provider = await startProviderServer(() => ({ status: 200, body: "ok" }));
    api = await startTestApi(backend);
    ws = await api.workspace();
    channelId = (await api.notificationClient(ws.write.key).createNotification({ notification: slack() })).notification!.id;
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
  });

  const mutations = (key: string | undefined, id = channelId) => {
    const c = api.notificationClient(key);
    return {
      CreateNotification: () => c.createNotification({ notification: slack() }),
      UpdateNotification: () => c.updateNotification({ id, notification: { name: "renamed" } }),
      SendTestNotification: () => c.sendTestNotification({ id }),
      DeleteNotification: () => c.deleteNotification({ id }),
    };
  };
  const reads = (key: string | undefined, id = channelId) => {
    const c = api.notificationClient(key);
    return {
      GetNotification: () => c.getNotification({ id }),
      ListNotifications: () => c.listNotifications({}),
      ListNotificationDeliveries: () => c.listNotificationDeliveries({ id }),
    };
  };

  it("treats a legacy key without scopes as write", async () => {
    const c = api.notificationClient(ws.legacy.key);
    const { notification } = await c.createNotification({ notification: slack() });
    const id = notification!.id;
    for (const [method, call] of Object.entries(mutations(ws.legacy.key, id)).filter(([name]) => name !== "CreateNotification")) {
      expect([method, await codeOf(call())]).toEqual([method, "ok"]);
    }
  });

  it("keeps workspaces apart: another workspace's channel is not found by any method, and not listed", async () => {
    const other = await api.workspace();
    const before = await written();
    const theirs = { ...mutations(other.write.key), ...reads(other.write.key) };
    for (const [method, call] of Object.entries(theirs).filter(([name]) => !["CreateNotification", "ListNotifications"].includes(name))) {
      expect([method, await codeOf(call())]).toEqual([method, Code.NotFound]);
    }
    expect(await written()).toEqual(before);
    const listed = await api.notificationClient(other.write.key).listNotifications({});
    expect([listed.totalSize, listed.notifications]).toEqual([0, []]);
    expect(await codeOf(api.notificationClient(ws.read.key).getNotification({ id: channelId }))).toBe("ok");
  });

  it("uses HTTP 401 and 403 for the Connect protocol", async () => {
    const call = (key?: string) =>
      api.fetch("/notification.v1.NotificationService/DeleteNotification", {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { "x-service-key": key } : {}) },
        body: JSON.stringify({ id: channelId }),
      });
    const anonymous = await call();
    expect([anonymous.status, (await jsonOf(anonymous)).code]).toEqual([401, "unauthenticated"]);
    const readOnly = await call(ws.read.key);
    expect([readOnly.status, (await jsonOf(readOnly)).code]).toEqual([403, "permission_denied"]);
  });
});

describe("NotificationService over every protocol", () => {
  let api: TestApi;
  let key: string;
  beforeAll(async () => {
    api = await startTestApi("pglite");
    key = (await api.workspace()).write.key;
  });
  afterAll(() => api.close());

  it.each(["connect", "grpc", "grpc-web"] as Protocol[])("creates and reads a channel over %s", async (protocol) => {
    const client = api.notificationClient(key, protocol);
    const { notification } = await client.createNotification({ notification: channel("ntfy", { topic: protocol }) });
    const got = await client.getNotification({ id: notification!.id });
    expect(got.notification).toMatchObject({ providerType: "ntfy", provider: { case: "ntfy", value: { topic: protocol } } });
  });

  it("serves the side-effect-free methods over Connect GET, in JSON with camelCase names", async () => {
    const message = encodeURIComponent(JSON.stringify({ limit: 1 }));
    const res = await api.fetch(`/notification.v1.NotificationService/ListNotifications?connect=v1&encoding=json&message=${message}`, {
      headers: { "x-service-key": key },
    });
    expect(res.status).toBe(200);
    const body = await jsonOf(res);
    expect(body.notifications[0]).toMatchObject({ providerType: "ntfy", ntfy: { topic: "connect", serverUrl: "", token: "" }, secretFingerprints: {} });
  });

  it("is listed by gRPC server reflection", async () => {
    const names = await reflectedServices(api.baseUrl);
    expect(names).toEqual(expect.arrayContaining(["notification.v1.NotificationService", "monitor.v1.MonitorService"]));
  });
});
