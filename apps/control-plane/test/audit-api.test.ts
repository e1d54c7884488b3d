import http from "node:http";
import type { AddressInfo } from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { secretFingerprint } from "@vigil/domain";
import { IncidentService, MaintenanceService, MonitorService, Periodicity } from "@vigil/proto";
import { NotificationService } from "@vigil/proto/notification";
import { StatusPageService } from "@vigil/proto/status-page";
import { channel } from "./support/channels";
import { codeOf } from "./support/codes";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";

const periodicity = Periodicity.PERIODICITY_1M;
const AUDITED_SERVICES: DescService[] = [MonitorService, IncidentService, MaintenanceService, NotificationService, StatusPageService];

/** Values that must never reach the audit log. */
const SECRETS = {
  monitorHeader: "Bearer monitor-header-secret-0123456789",
  slackUrl: "https://hooks.slack.com/services/T0001/B0001/firstsecretpathabcdefgh",
  slackUrlUpdated: "https://hooks.slack.com/services/T0001/B0001/secondsecretpathabcdefg",
  webhookHeader: "Basic d2ViaG9vay1zZWNyZXQtdmFsdWU=",
  pagePassword: "correct horse battery staple",
  pagePasswordUpdated: "tr0ub4dor & 3 and more",
};

interface Call {
  method: string;
  targetKind: string;
  targetId: string;
}

const byMethodAndTarget = (a: Call, b: Call) => `${a.method} ${a.targetId}`.localeCompare(`${b.method} ${b.targetId}`);

describe.each(BACKENDS)("audit log of the API on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  /** The key the mutations are made with: named, so entries can be checked to name it. */
  let writer: { id: string; key: string; prefix: string; name: string };
  let receiver: http.Server;
  const calls: Call[] = [];
  let pageFingerprints: string[] = [];

  const entries = () => api.db.prisma.auditEntry.findMany();
  const entryCount = async () => (await entries()).length;

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    const { apiKey, key } = await api.admin.createApiKey({ workspaceSlug: ws.slug, scope: "write", name: "deploy bot" });
    writer = { id: apiKey.id, key, prefix: apiKey.prefix, name: "deploy bot" };
    // The test channel's webhook goes here, so that SendTestNotification completes on loopback.
    receiver = http.createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await api.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /** Makes one call, remembering which entry it must leave. */
  const made = async <T>(service: DescService, method: string, targetKind: string, call: () => Promise<T>, idOf: (answer: T) => string) => {
    const answer = await call();
    calls.push({ method: `${service.typeName}/${method}`, targetKind, targetId: idOf(answer) });
    return answer;
  };

  it("records every mutating method of every service once, with the key, the method and the target", async () => {
    const monitors = api.client(writer.key);
    const channels = api.notificationClient(writer.key);
    const pages = api.statusPageClient(writer.key);
    const M = MonitorService;
    const N = NotificationService;
    const S = StatusPageService;

    const homepage = await made(M, "CreateHTTPMonitor", "HTTPMonitor", () =>
      monitors.createHTTPMonitor({
        monitor: { name: "Homepage", url: "https://example.com", periodicity, headers: [{ key: "authorization", value: SECRETS.monitorHeader }] },
      }), (a) => a.monitor!.id);
    const httpId = homepage.monitor!.id;
    await made(M, "UpdateHTTPMonitor", "HTTPMonitor", () => monitors.updateHTTPMonitor({ id: httpId, monitor: { name: "Home" } }), (a) => a.monitor!.id);
    const tcp = await made(M, "CreateTCPMonitor", "TCPMonitor", () =>
      monitors.createTCPMonitor({ monitor: { name: "db", uri: "example.com:5432", periodicity } }), (a) => a.monitor!.id);
    await made(M, "UpdateTCPMonitor", "TCPMonitor", () => monitors.updateTCPMonitor({ id: tcp.monitor!.id, monitor: { name: "db2" }, updateMask: { paths: ["name", "degradedAt"] } }), (a) => a.monitor!.id);
    const dns = await made(M, "CreateDNSMonitor", "DNSMonitor", () =>
      monitors.createDNSMonitor({ monitor: { name: "dns", uri: "example.com", periodicity } }), (a) => a.monitor!.id);
    await made(M, "UpdateDNSMonitor", "DNSMonitor", () => monitors.updateDNSMonitor({ id: dns.monitor!.id, monitor: { name: "dns2" } }), (a) => a.monitor!.id);
    const grpc = await made(M, "CreateGRPCMonitor", "GRPCMonitor", () =>
      monitors.createGRPCMonitor({ monitor: { name: "health", uri: "example.com:443", tls: true, periodicity } }), (a) => a.monitor!.id);
    await made(M, "UpdateGRPCMonitor", "GRPCMonitor", () => monitors.updateGRPCMonitor({ id: grpc.monitor!.id, monitor: { service: "pkg.Svc" } }), (a) => a.monitor!.id);
    const heartbeat = await made(M, "CreateHeartbeatMonitor", "HeartbeatMonitor", () =>
      monitors.createHeartbeatMonitor({ monitor: { name: "backup" } }), (a) => a.monitor!.id);
    await made(M, "UpdateHeartbeatMonitor", "HeartbeatMonitor", () => monitors.updateHeartbeatMonitor({ id: heartbeat.monitor!.id, monitor: { name: "backup2" } }), (a) => a.monitor!.id);
    await made(M, "TriggerMonitor", "Monitor", () => monitors.triggerMonitor({ id: httpId }), () => httpId);
    // Incidents come from check results; one written directly stands for what alerting records.
    const { id: workspaceId } = await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: ws.slug } });
    const incident = await api.db.prisma.incident.create({ data: { workspaceId, monitorId: httpId, severity: "error", startedAt: new Date(), regions: [] } });
    await made(IncidentService, "AcknowledgeIncident", "Incident", () => api.incidents(writer.key).acknowledgeIncident({ id: incident.id }), (a) => a.incident!.id);
    const windows = api.maintenanceClient(writer.key);
    const window = await made(MaintenanceService, "CreateMaintenanceWindow", "MaintenanceWindow", () =>
      windows.createMaintenanceWindow({ maintenance: { title: "DB upgrade", startsAt: { seconds: 1_900_000_000n }, endsAt: { seconds: 1_900_003_600n }, monitorIds: [tcp.monitor!.id] } }), (a) => a.maintenance!.id);
    const windowId = window.maintenance!.id;
    await made(MaintenanceService, "UpdateMaintenanceWindow", "MaintenanceWindow", () =>
      windows.updateMaintenanceWindow({ id: windowId, maintenance: { title: "DB upgrade, part 2" } }), (a) => a.maintenance!.id);
    await made(MaintenanceService, "DeleteMaintenanceWindow", "MaintenanceWindow", () => windows.deleteMaintenanceWindow({ id: windowId }), () => windowId);
    await made(M, "DeleteMonitor", "Monitor", () => monitors.deleteMonitor({ id: tcp.monitor!.id }), () => tcp.monitor!.id);

    const slack = await made(N, "CreateNotification", "Notification", () =>
      channels.createNotification({ notification: channel("slack", { webhookUrl: SECRETS.slackUrl }, { name: "team" }) }), (a) => a.notification!.id);
    const slackId = slack.notification!.id;
    await made(N, "UpdateNotification", "Notification", () =>
      channels.updateNotification({ id: slackId, notification: channel("slack", { webhookUrl: SECRETS.slackUrlUpdated }) }), (a) => a.notification!.id);
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const hook = await made(N, "CreateNotification", "Notification", () =>
      channels.createNotification({
        notification: channel("webhook", { endpoint, headers: [{ key: "authorization", value: SECRETS.webhookHeader }] }, { name: "hook" }),
      }), (a) => a.notification!.id);
    const hookId = hook.notification!.id;
    await made(N, "SendTestNotification", "Notification", () => channels.sendTestNotification({ id: hookId }), () => hookId);
    await made(N, "DeleteNotification", "Notification", () => channels.deleteNotification({ id: slackId }), () => slackId);

    const page = await made(S, "CreateStatusPage", "StatusPage", () =>
      pages.createStatusPage({ statusPage: { title: "Acme", slug: `audit-${backend}`, accessType: "password", password: SECRETS.pagePassword } }),
      (a) => a.statusPage!.id);
    const pageId = page.statusPage!.id;
    const updated = await made(S, "UpdateStatusPage", "StatusPage", () =>
      pages.updateStatusPage({ id: pageId, statusPage: { password: SECRETS.pagePasswordUpdated } }), (a) => a.statusPage!.id);
    pageFingerprints = [page.statusPage!.passwordFingerprint, updated.statusPage!.passwordFingerprint];
    await made(S, "PublishStatusPage", "StatusPage", () => pages.publishStatusPage({ id: pageId }), (a) => a.statusPage!.id);
    await made(S, "UnpublishStatusPage", "StatusPage", () => pages.unpublishStatusPage({ id: pageId }), (a) => a.statusPage!.id);
    const group = await made(S, "CreateStatusPageComponentGroup", "StatusPageComponentGroup", () =>
      pages.createStatusPageComponentGroup({ group: { pageId, name: "Core" } }), (a) => a.group!.id);
    const groupId = group.group!.id;
    await made(S, "UpdateStatusPageComponentGroup", "StatusPageComponentGroup", () =>
      pages.updateStatusPageComponentGroup({ pageId, id: groupId, group: { name: "Core services" } }), (a) => a.group!.id);
    const component = await made(S, "CreateStatusPageComponent", "StatusPageComponent", () =>
      pages.createStatusPageComponent({ component: { pageId, type: "static", name: "API" } }), (a) => a.component!.id);
    const componentId = component.component!.id;
    await made(S, "UpdateStatusPageComponent", "StatusPageComponent", () =>
      pages.updateStatusPageComponent({ pageId, id: componentId, component: { name: "Public API" } }), (a) => a.component!.id);
    const written = await made(S, "CreateStatusPageIncident", "StatusPageIncident", () =>
      pages.createStatusPageIncident({ incident: { pageId, title: "API errors", status: "investigating", message: "Looking into it", components: [{ componentId, impact: "partial_outage" }] } }), (a) => a.incident!.id);
    const incidentId = written.incident!.id;
    await made(S, "AddStatusPageIncidentUpdate", "StatusPageIncidentUpdate", () =>
      pages.addStatusPageIncidentUpdate({ incidentId, status: "resolved", message: "Fixed" }), (a) => a.incident!.id);
    await made(S, "UpdateStatusPageIncident", "StatusPageIncident", () =>
      pages.updateStatusPageIncident({ id: incidentId, incident: { postmortem: "A bad deploy." } }), (a) => a.incident!.id);
    await made(S, "DeleteStatusPageIncident", "StatusPageIncident", () => pages.deleteStatusPageIncident({ id: incidentId }), () => incidentId);
    // Visitors subscribe on the public page, unaudited; their owner's removal is audited.
    const subscriber = await api.db.prisma.statusPageSubscriber.create({ data: { pageId, kind: "email", email: "reader@example.com", unsubscribeTokenHash: "audit" } });
    await made(S, "DeleteStatusPageSubscriber", "StatusPageSubscriber", () => pages.deleteStatusPageSubscriber({ id: subscriber.id }), () => subscriber.id);
    await made(S, "DeleteStatusPageComponent", "StatusPageComponent", () => pages.deleteStatusPageComponent({ pageId, id: componentId }), () => componentId);
    await made(S, "DeleteStatusPageComponentGroup", "StatusPageComponentGroup", () =>
      pages.deleteStatusPageComponentGroup({ pageId, id: groupId }), () => groupId);
    await made(S, "DeleteStatusPage", "StatusPage", () => pages.deleteStatusPage({ id: pageId }), () => pageId);

    const recorded = await entries();
    expect(recorded.map(({ method, targetKind, targetId }) => ({ method, targetKind, targetId })).sort(byMethodAndTarget)).toEqual(
      [...calls].sort(byMethodAndTarget),
    );
    for (const entry of recorded) {
      expect(entry).toMatchObject({ workspaceId: expect.any(String), actorType: "api_key", apiKeyId: writer.id, apiKeyName: writer.name, apiKeyPrefix: writer.prefix });
    }
    const workspace = await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: ws.slug } });
    expect(new Set(recorded.map((e) => e.workspaceId))).toEqual(new Set([workspace.id]));
  });

  it("has a call above for every method the contract does not mark free of side effects, so a new RPC cannot go unaudited", () => {
    const mutating = AUDITED_SERVICES.flatMap((service) =>
      service.methods.filter((m) => m.idempotency !== MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS).map((m) => `${service.typeName}/${m.name}`),
    );
    expect(mutating.length).toBeGreaterThan(20);
    expect(mutating.filter((method) => !calls.some((call) => call.method === method))).toEqual([]);
  });

  it("keeps the request's fields with every secret replaced by the fingerprint answers show", async () => {
    const recorded = await entries();
    const text = JSON.stringify(recorded);
    for (const secret of [...Object.values(SECRETS), writer.key]) expect(text).not.toContain(secret);

    const update = recorded.find((e) => e.method.endsWith("/UpdateHTTPMonitor"))!;
    expect(update.changes).toEqual({ id: update.targetId, monitor: { name: "Home" } });
    // Masks come in either spelling (the CLI and the Terraform provider send camelCase); JSON writes camelCase.
    const masked = recorded.find((e) => e.method.endsWith("/UpdateTCPMonitor"))!;
    expect(masked.changes).toEqual({ id: masked.targetId, monitor: { name: "db2" }, updateMask: "name,degradedAt" });
    const pageEntries = recorded.filter((e) => /\/(Create|Update)StatusPage$/.test(e.method));
    const passwords = pageEntries.map((e) => (e.changes as { statusPage: { password: string } }).statusPage.password).sort();
    expect(passwords).toEqual(pageFingerprints.map((fp) => `fingerprint:${fp}`).sort());
    const hook = recorded.find((e) => e.method.endsWith("/CreateNotification") && JSON.stringify(e.changes).includes('"webhook"'))!;
    expect(hook.changes).toMatchObject({
      notification: { webhook: { headers: [{ key: "authorization", value: `fingerprint:${secretFingerprint(hook.targetId, SECRETS.webhookHeader)}` }] } },
    });
  });

  it("records a change whose request carries read-only timestamps JSON cannot write, without them", async () => {
    const before = await entryCount();
    const beyondJson = { seconds: 10n ** 15n, nanos: 0 };
    const { monitor } = await api.client(writer.key).createHTTPMonitor({
      monitor: { name: "Timeless", url: "https://example.com/", periodicity, createdAt: beyondJson, updatedAt: beyondJson },
    });
    expect(await entryCount()).toBe(before + 1);
    const entry = (await entries()).find((e) => e.targetId === monitor!.id)!;
    expect(entry.changes).toEqual({ monitor: { name: "Timeless", url: "https://example.com/", periodicity: "PERIODICITY_1M" } });
  });

  it("records no reads", async () => {
    const before = await entryCount();
    const monitors = api.client(writer.key);
    const { httpMonitors } = await monitors.listMonitors({});
    await monitors.getMonitor({ id: httpMonitors[0]!.id });
    await monitors.getMonitorStatus({ id: httpMonitors[0]!.id });
    await api.notificationClient(ws.read.key).listNotifications({});
    await api.statusPageClient(writer.key).listStatusPages({});
    await api.incidents(writer.key).listIncidents({});
    expect(await entryCount()).toBe(before);
  });

  it("records no failed or refused mutation", async () => {
    const before = await entryCount();
    const failures = [
      [api.client(writer.key).createHTTPMonitor({ monitor: { name: "", url: "nope", periodicity } }), Code.InvalidArgument],
      [api.client(writer.key).deleteMonitor({ id: "01900000-0000-7000-8000-000000000000" }), Code.NotFound],
      [api.client(ws.read.key).createTCPMonitor({ monitor: { name: "x", uri: "example.com:1", periodicity } }), Code.PermissionDenied],
      [api.statusPageClient("vgl_unknown").createStatusPage({ statusPage: { title: "x", slug: "x" } }), Code.Unauthenticated],
    ] as const;
    for (const [call, code] of failures) expect(await codeOf(call)).toBe(code);
    expect(await entryCount()).toBe(before);
  });

  it("records a key revoked through DELETE /v1/api-key/:id, and not a refused revocation", async () => {
    const before = await entryCount();
    const missing = await api.fetch("/v1/api-key/no-such-key", { method: "DELETE", headers: { "x-service-key": writer.key } });
    expect(missing.status).toBe(404);
    expect(await entryCount()).toBe(before);

    const revoked = await api.fetch(`/v1/api-key/${ws.legacy.id}`, { method: "DELETE", headers: { "x-service-key": writer.key } });
    expect(revoked.status).toBe(200);
    const recorded = await api.db.prisma.auditEntry.findMany({ where: { method: "DELETE /v1/api-key/:id" } });
    expect(recorded).toEqual([
      expect.objectContaining({ actorType: "api_key", apiKeyId: writer.id, targetKind: "ApiKey", targetId: ws.legacy.id, changes: {} }),
    ]);
  });

  it("prunes entries older than the retention", async () => {
    const count = await entryCount();
    expect(await api.admin.audit.prune(365)).toBe(0);
    const later = new Date(Date.now() + 2 * 24 * 3_600_000);
    expect(await api.admin.audit.prune(1, later)).toBe(count);
    expect(await entryCount()).toBe(0);
  });
});
