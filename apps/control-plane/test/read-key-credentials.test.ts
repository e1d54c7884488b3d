import { Code } from "@connectrpc/connect";
import { secretFingerprint } from "@vigil/domain";
import { Periodicity } from "@vigil/proto";
import { BACKENDS, jsonOf, startTestApi, type Protocol, type TestApi, type WorkspaceKeys } from "./support/api";
import { channel } from "./support/channels";
import { expectRefused } from "./support/codes";

const periodicity = Periodicity.PERIODICITY_1M;

/** Credentials inside configurations: none may reach a read key or the audit log. */
const SECRETS = {
  url: "https://probe:url-secret-1@example.com/health?region=eu",
  header: "Bearer header-secret-2",
  otelEndpoint: "https://otel:otel-secret-3@otel.example.com/v1/metrics",
  otelHeader: "otel-header-secret-4",
  webhookEndpoint: "https://hooks.example.com/services/T0/B0/path-secret-5?token=query-secret-6",
  webhookHeader: "Basic webhook-header-secret-7",
  ntfyServer: "https://alerts:ntfy-secret-8@ntfy.example.com",
};
const SECRET_PARTS = ["url-secret-1", "header-secret-2", "otel-secret-3", "otel-header-secret-4", "path-secret-5", "query-secret-6", "webhook-header-secret-7", "ntfy-secret-8"];

const fingerprint = (ownerId: string, value: string) => `fingerprint:${secretFingerprint(ownerId, value)}`;
const leaked = (answer: unknown) => {
  const text = JSON.stringify(answer, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value));
  return SECRET_PARTS.filter((part) => text.includes(part));
};

describe.each(BACKENDS)("credentials in answers to read keys, on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let httpId: string;
  let tcpId: string;
  let hookId: string;
  let ntfyId: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    const monitors = api.client(ws.write.key);
    const openTelemetry = { endpoint: SECRETS.otelEndpoint, headers: [{ key: "x-api-key", value: SECRETS.otelHeader }] };
    httpId = (await monitors.createHTTPMonitor({
      monitor: { name: "Site", url: SECRETS.url, periodicity, headers: [{ key: "authorization", value: SECRETS.header }, { key: "accept", value: "" }], openTelemetry },
    })).monitor!.id;
    tcpId = (await monitors.createTCPMonitor({ monitor: { name: "Db", uri: "db.example.com:5432", periodicity, openTelemetry } })).monitor!.id;
    const channels = api.notificationClient(ws.write.key);
    const hook = channel("webhook", { endpoint: SECRETS.webhookEndpoint, headers: [{ key: "authorization", value: SECRETS.webhookHeader }] }, { name: "hook" });
    hookId = (await channels.createNotification({ notification: hook })).notification!.id;
    const ntfy = channel("ntfy", { topic: "alerts", serverUrl: SECRETS.ntfyServer, token: "" }, { name: "ntfy" });
    ntfyId = (await channels.createNotification({ notification: ntfy })).notification!.id;
  });
  afterAll(() => api.close());

  /** What a read key must see: each credential as its fingerprint, everything else as stored. */
  const redactedHttp = () => ({
    url: `https://fingerprint:${secretFingerprint(httpId, "probe:url-secret-1")}@example.com/health?region=eu`,
    headers: [
      { key: "authorization", value: fingerprint(httpId, SECRETS.header) },
      { key: "accept", value: "" },
    ],
    openTelemetry: {
      endpoint: `https://fingerprint:${secretFingerprint(httpId, "otel:otel-secret-3")}@otel.example.com/v1/metrics`,
      headers: [{ key: "x-api-key", value: fingerprint(httpId, SECRETS.otelHeader) }],
    },
  });
  const redactedHook = () => ({
    endpoint: `https://hooks.example.com/fingerprint:${secretFingerprint(hookId, "/services/T0/B0/path-secret-5?token=query-secret-6")}`,
    headers: [{ key: "authorization", value: fingerprint(hookId, SECRETS.webhookHeader) }],
  });
  const redactedNtfyServer = () => `https://fingerprint:${secretFingerprint(ntfyId, "alerts:ntfy-secret-8")}@ntfy.example.com/`;

  const PROTOCOLS: Protocol[] = ["connect", "grpc", "grpc-web"];

  it.each(PROTOCOLS)("answers monitors' header values, OTLP headers and URL user info as fingerprints to a read key over %s", async (protocol) => {
    const reader = api.client(ws.read.key, protocol);
    const got = await reader.getMonitor({ id: httpId });
    expect(got.monitor?.config.value).toMatchObject(redactedHttp());
    const list = await reader.listMonitors({});
    expect(list.httpMonitors[0]).toMatchObject(redactedHttp());
    expect(list.tcpMonitors[0]!.openTelemetry).toMatchObject({ headers: [{ key: "x-api-key", value: fingerprint(tcpId, SECRETS.otelHeader) }] });
    expect(leaked([got, list])).toEqual([]);

    // A write key still gets every value, before and after the read key's calls.
    const writer = api.client(ws.write.key, protocol);
    const full = await writer.getMonitor({ id: httpId });
    expect(full.monitor?.config.value).toMatchObject({ url: SECRETS.url, headers: [{ value: SECRETS.header }, { value: "" }], openTelemetry: { endpoint: SECRETS.otelEndpoint } });
    expect(leaked(await writer.listMonitors({}))).toEqual(SECRET_PARTS.slice(0, 4));
    expect(leaked(await reader.listMonitors({}))).toEqual([]);
  });

  it.each(PROTOCOLS)("answers a webhook channel's headers, its endpoint's path and query, and URL user info as fingerprints to a read key over %s", async (protocol) => {
    const reader = api.notificationClient(ws.read.key, protocol);
    const hook = (await reader.getNotification({ id: hookId })).notification!;
    expect(hook.provider.value).toMatchObject(redactedHook());
    const list = await reader.listNotifications({});
    const ntfy = list.notifications.find((n) => n.id === ntfyId)!;
    expect(ntfy.provider.value).toMatchObject({ topic: "alerts", serverUrl: redactedNtfyServer() });
    expect(leaked([hook, list])).toEqual([]);

    const writer = api.notificationClient(ws.write.key, protocol);
    expect((await writer.getNotification({ id: hookId })).notification!.provider.value).toMatchObject({
      endpoint: SECRETS.webhookEndpoint,
      headers: [{ key: "authorization", value: SECRETS.webhookHeader }],
    });
    expect((await writer.getNotification({ id: ntfyId })).notification!.provider.value).toMatchObject({ serverUrl: SECRETS.ntfyServer });
  });

  it("answers the same over Connect's JSON, POST and GET, keeping the read and the write answers apart", async () => {
    const call = async (key: string, method: string, message: object, get = false) => {
      const path = `/monitor.v1.MonitorService/${method}`;
      const res = get
        ? await api.fetch(`${path}?connect=v1&encoding=json&message=${encodeURIComponent(JSON.stringify(message))}`, { headers: { "x-service-key": key } })
        : await api.fetch(path, { method: "POST", headers: { "x-service-key": key, "content-type": "application/json" }, body: JSON.stringify(message) });
      expect(res.status).toBe(200);
      return jsonOf(res);
    };
    // Alternated, and each asked twice: the server keeps written answers per page and per monitor.
    for (let round = 0; round < 2; round++) {
      for (const get of [false, true]) {
        const full = await call(ws.write.key, "ListMonitors", {}, get);
        expect(full.httpMonitors[0]).toMatchObject({ url: SECRETS.url, headers: [{ key: "authorization", value: SECRETS.header }, { key: "accept", value: "" }] });
        const read = await call(ws.read.key, "ListMonitors", {}, get);
        expect(read.httpMonitors[0]).toMatchObject(redactedHttp());
        expect(leaked(read)).toEqual([]);
        const one = await call(ws.read.key, "GetMonitor", { id: httpId }, get);
        expect(one.monitor.http).toMatchObject(redactedHttp());
        expect((await call(ws.write.key, "GetMonitor", { id: httpId }, get)).monitor.http).toMatchObject({ url: SECRETS.url });
      }
    }
  });

  it("keeps the stored value when a write key sends back a fingerprint a read key was answered", async () => {
    const seen = (await api.client(ws.read.key).getMonitor({ id: httpId })).monitor!.config.value as ReturnType<typeof redactedHttp>;
    const writer = api.client(ws.write.key);
    const headers = [...seen.headers, { key: "x-extra", value: "plain" }];
    const updated = await writer.updateHTTPMonitor({ id: httpId, monitor: { url: seen.url, headers, openTelemetry: seen.openTelemetry } });
    expect(updated.monitor).toMatchObject({
      url: SECRETS.url,
      headers: [{ key: "authorization", value: SECRETS.header }, { key: "accept", value: "" }, { key: "x-extra", value: "plain" }],
      openTelemetry: { endpoint: SECRETS.otelEndpoint, headers: [{ key: "x-api-key", value: SECRETS.otelHeader }] },
    });

    const channels = api.notificationClient(ws.write.key);
    const hook = (await api.notificationClient(ws.read.key).getNotification({ id: hookId })).notification!;
    const kept = await channels.updateNotification({ id: hookId, notification: { provider: hook.provider }, updateMask: { paths: ["webhook"] } });
    expect(kept.notification!.provider.value).toMatchObject({ endpoint: SECRETS.webhookEndpoint, headers: [{ value: SECRETS.webhookHeader }] });
  });

  it("refuses a fingerprint that stands for no stored value, naming the field, and writes nothing", async () => {
    const writer = api.client(ws.write.key);
    const monitors = () => api.db.prisma.monitor.findMany({ orderBy: { id: "asc" } });
    const foreign = fingerprint(tcpId, SECRETS.header);
    await expectRefused(
      monitors,
      () => writer.createHTTPMonitor({ monitor: { name: "Copy", url: "https://example.com", periodicity, headers: [{ key: "authorization", value: foreign }] } }),
      Code.InvalidArgument,
      "monitor.headers[0].value: is a fingerprint of a credential, as answers to read keys show it, not a value",
    );
    await expectRefused(
      monitors,
      () => writer.updateHTTPMonitor({ id: httpId, monitor: { url: `https://fingerprint:${secretFingerprint(httpId, "other:pass")}@example.com/health` } }),
      Code.InvalidArgument,
      "monitor.url: ",
    );
    await expectRefused(
      monitors,
      () => writer.updateTCPMonitor({ id: tcpId, monitor: { openTelemetry: { endpoint: "", headers: [{ key: "x-api-key", value: fingerprint(tcpId, "rotated") }] } } }),
      Code.InvalidArgument,
      "monitor.openTelemetry.headers[0].value: ",
    );
    const channels = () => api.db.prisma.notificationChannel.findMany({ orderBy: { id: "asc" } });
    const hook = channel("webhook", { endpoint: `https://hooks.example.com/fingerprint:${secretFingerprint(hookId, "/elsewhere")}`, headers: [] });
    await expectRefused(
      channels,
      () => api.notificationClient(ws.write.key).createNotification({ notification: hook }),
      Code.InvalidArgument,
      "notification.webhook.endpoint: ",
    );
  });

  it("fingerprints URL user info, webhook URL paths and header values in the audit log", async () => {
    const entries = await api.db.prisma.auditEntry.findMany({ where: { targetId: { in: [httpId, hookId, ntfyId] } } });
    expect(entries.length).toBeGreaterThanOrEqual(3);
    expect(leaked(entries)).toEqual([]);
    const created = entries.find((e) => e.method.endsWith("/CreateHTTPMonitor"))!;
    // The request's JSON leaves out an empty value.
    const { url, headers, openTelemetry } = redactedHttp();
    expect(created.changes).toMatchObject({ monitor: { url, headers: [headers[0], { key: "accept" }], openTelemetry } });
    const hook = entries.find((e) => e.method.endsWith("/CreateNotification") && e.targetId === hookId)!;
    expect(hook.changes).toMatchObject({ notification: { webhook: redactedHook() } });
    const ntfy = entries.find((e) => e.method.endsWith("/CreateNotification") && e.targetId === ntfyId)!;
    expect(ntfy.changes).toMatchObject({ notification: { ntfy: { serverUrl: redactedNtfyServer() } } });
  });

  it("leaves a status page's public view as it was", async () => {
    const pages = api.statusPageClient(ws.write.key);
    const slug = `creds-${backend}`;
    const page = (await pages.createStatusPage({ statusPage: { title: "Shop", slug } })).statusPage!;
    await pages.createStatusPageComponent({ component: { pageId: page.id, type: "monitor", monitorId: httpId, name: "Site" } });
    const res = await api.fetch(`/status/${slug}/summary.json`);
    expect(res.status).toBe(200);
    const summary = await jsonOf(res);
    expect(JSON.stringify(summary)).toContain("Site");
    expect(leaked(summary)).toEqual([]);
  });
});
