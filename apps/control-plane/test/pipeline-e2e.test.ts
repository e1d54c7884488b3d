import http from "node:http";
import https from "node:https";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { REGION_IDS } from "@vigil/domain";
import { JsonComparator, MonitorService, MonitorStatus, Periodicity, Region, TimeRange } from "@vigil/proto";
import { connectRedis, type CheckJobData } from "@vigil/queue";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { startAgent, type AgentProcess } from "../../agent/test/support/processes";
import { startCollector } from "../../agent/test/support/collector";
import { spansIn } from "../../agent/test/support/otlp";
import { Administration } from "../src/admin/operations";
import { MonitorRepository } from "../src/monitors/repository";
import { CheckScheduler } from "../src/scheduling/scheduler";
import { createLogger } from "@vigil/logging";
import { startPipeline, type Pipeline } from "../src/pipeline";
import { apiPartsOf, startApiServer } from "../src/server";
import { openTestDatabase } from "./support/api";
import { testNotifications, testPipelineConfig } from "./support/control-plane";
import { eventually } from "../../../test/eventually";
import { createTestPki, type TestPki } from "../../../test/certificates";
import { startGrpcHealthServer } from "../../../packages/checks/test/support/grpc-health-server";
import type { Listener } from "../src/http/listener";

/**
 * The whole pipeline: monitors made through the RPC API, agents in two
 * regions (real processes), a target on loopback, results flowing back.
 */
describe("the check pipeline end to end", () => {
  const prefix = testPrefix();
  const redisUrl = redisServerUrl();
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  let pipeline: Pipeline;
  let listener: Listener;
  let apiPort = 0;
  let client: Client<typeof MonitorService>;
  const agents: AgentProcess[] = [];
  let hits = 0;
  /** The traceparent headers of each request the target saw (each one sent, repeated or not), by path and query. */
  const traceparents: { url: string; traceparent: string[] | undefined }[] = [];
  const target = http.createServer((req, res) => {
    hits++;
    traceparents.push({ url: req.url ?? "", traceparent: req.headersDistinct.traceparent });
    if (req.url === "/status.json") return res.setHeader("content-type", "application/json").end('{"status":"degraded","services":[{"ok":true},{"ok":false}]}');
    res.end("ok");
  });
  let targetUrl: string;
  /** An HTTPS target whose certificate a test changes; the agents trust the test PKI's root (NODE_EXTRA_CA_CERTS). */
  let pki: TestPki;
  let secure: https.Server;
  let caDir: string;

  const startControlPlane = async () => {
    const logger = createLogger("silent", "test");
    const notifications = testNotifications(db.prisma);
    pipeline = await startPipeline(db.prisma, testPipelineConfig(prefix), logger, notifications.setup);
    // A restarted control plane comes back on the same port, as behind a load balancer.
    listener = await startApiServer({
      prisma: db.prisma,
      ...apiPartsOf(pipeline, prefix),
      notifications: { settings: notifications.settings, secrets: notifications.box },
      logger,
      port: apiPort,
      host: "127.0.0.1",
    });
    apiPort = listener.address().port;
  };
  const stopControlPlane = async () => {
    await listener.close();
    await pipeline.stop();
  };

  beforeAll(async () => {
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
    db = await openTestDatabase("postgres");
    await startControlPlane();
    const admin = new Administration(db.prisma);
    await admin.createWorkspace({ name: "E2E", slug: "e2e" });
    const { key } = await admin.createApiKey({ workspaceSlug: "e2e", scope: "write" });
    client = createClient(
      MonitorService,
      createConnectTransport({
        baseUrl: `http://127.0.0.1:${listener.address().port}`,
        httpVersion: "1.1",
        interceptors: [(next) => (req) => (req.header.set("x-service-key", key), next(req))],
      }),
    );
    pki = await createTestPki();
    caDir = mkdtempSync(join(tmpdir(), "vigil-ca-"));
    writeFileSync(join(caDir, "root.pem"), pki.rootPem);
    secure = https.createServer(await pki.leaf(90), (_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => secure.listen(0, "127.0.0.1", resolve));
    for (const region of ["hostA-ams", "hostB-fra"]) {
      // Check spans go out a moment after their check rather than after the default 5 s.
      agents.push(
        await startAgent({ REGION: region, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, OTEL_BSP_SCHEDULE_DELAY: "100", NODE_EXTRA_CA_CERTS: join(caDir, "root.pem") }),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.stop()));
    await stopControlPlane().catch(() => {});
    await deletePrefix(prefix);
    await db.dispose();
    target.close();
    secure.close();
    rmSync(caDir, { recursive: true, force: true });
  });

  const storedResults = (monitorId: string) => db.prisma.checkResult.findMany({ where: { monitorId } });
  /** Triggers a check of a monitor of one region and answers its result, as ListCheckResults does. */
  const checkedOnce = async (id: string) => {
    await client.triggerMonitor({ id });
    const [result] = await eventually(async () => {
      const { results } = await client.listCheckResults({ id });
      expect(results).toHaveLength(1);
      return results;
    });
    return result!;
  };

  it("checks an active monitor on schedule in each of its regions, and status and summary reflect the results", async () => {
    const { monitor } = await client.createHTTPMonitor({
      monitor: { name: "api", url: targetUrl, periodicity: Periodicity.PERIODICITY_30S, active: true, regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] },
    });
    const id = monitor!.id;
    // The first scheduled run comes within one period (runs are spread over it).
    const results = await eventually(async () => {
      const rows = await storedResults(id);
      expect(new Set(rows.map((r) => r.region))).toEqual(new Set(["hostA-ams", "hostB-fra"]));
      return rows;
    }, 45_000);
    expect(results.every((r) => r.trigger === "scheduled" && r.status === "success" && r.statusCode === 200)).toBe(true);

    expect(await client.getMonitorStatus({ id })).toMatchObject({
      regions: [
        { region: Region.HOSTA_AMS, status: MonitorStatus.ACTIVE },
        { region: Region.HOSTB_FRA, status: MonitorStatus.ACTIVE },
      ],
    });
    const summary = await client.getMonitorSummary({ id, timeRange: TimeRange.TIME_RANGE_1D });
    expect(summary.totalSuccessful).toBeGreaterThanOrEqual(2n);
    expect(summary.lastPingAt).toBeDefined();
    expect(summary.p50).toBeGreaterThanOrEqual(0n);
    const ams = await client.getMonitorSummary({ id, timeRange: TimeRange.TIME_RANGE_1D, regions: [Region.HOSTA_AMS] });
    expect(ams.totalSuccessful).toBeLessThan(summary.totalSuccessful);
    expect((await client.getMonitor({ id })).monitor!.config.value!.status).toBe(MonitorStatus.ACTIVE);
  }, 60_000);

  it("stores the trace id of the traceparent the target saw, answers it as traceId, and exports the check's span with it", async () => {
    const collector = await startCollector();
    try {
      const { monitor } = await client.createHTTPMonitor({
        monitor: {
          name: "traced",
          url: `${targetUrl}?traced`,
          periodicity: Periodicity.PERIODICITY_1H,
          regions: [Region.HOSTA_AMS],
          openTelemetry: { endpoint: collector.origin },
        },
      });
      expect(monitor!.traceHeader).toBe(true);
      const result = await checkedOnce(monitor!.id);
      const seen = traceparents.filter((request) => request.url === "/health?traced");
      expect(seen).toHaveLength(1);
      expect(seen[0]!.traceparent).toHaveLength(1);
      const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(seen[0]!.traceparent![0]!) ?? [];
      expect(result.traceId).toBe(traceId);

      const span = await eventually(() => {
        const found = spansIn(collector.exports).find((candidate) => candidate.spanId === spanId);
        expect(found).toBeDefined();
        return found!;
      });
      expect(span).toMatchObject({ traceId, name: "GET" });
      expect(span.attributes).toMatchObject({
        "http.request.method": "GET",
        "url.full": `${targetUrl}?traced`,
        "server.address": "127.0.0.1",
        "http.response.status_code": 200,
        "vigil.monitor.id": monitor!.id,
      });
    } finally {
      await collector.close();
    }
  });

  it("sends no traceparent for a monitor with traceHeader off, and its results carry no trace id", async () => {
    const { monitor } = await client.createHTTPMonitor({
      monitor: { name: "untraced", url: `${targetUrl}?untraced`, periodicity: Periodicity.PERIODICITY_1H, regions: [Region.HOSTA_AMS], traceHeader: false },
    });
    expect(monitor!.traceHeader).toBe(false);
    const result = await checkedOnce(monitor!.id);
    expect(traceparents.filter((request) => request.url === "/health?untraced")).toEqual([{ url: "/health?untraced", traceparent: undefined }]);
    expect(result.traceId).toBe("");
  });

  it("records an HTTPS target's certificate per region, counts an intermediate expiring first, warns once, and still fails an expired one as tls", async () => {
    // The leaf has 60 days, its intermediate 10: the chain stops being trusted in 10 days, which is what counts.
    const served = await pki.leaf(60, { intermediateDays: 10 });
    secure.setSecureContext(served);
    const { monitor } = await client.createHTTPMonitor({
      monitor: { name: "tls", url: `https://127.0.0.1:${(secure.address() as AddressInfo).port}/`, periodicity: Periodicity.PERIODICITY_1H, regions: [Region.HOSTA_AMS], retry: 0n },
    });
    const id = monitor!.id;
    expect(monitor!.certificateExpiryDays).toBe(14n);
    expect(await checkedOnce(id)).toMatchObject({ status: MonitorStatus.ACTIVE, failureReason: "" });

    const [region] = (await client.getMonitorStatus({ id })).regions;
    const certificate = region!.certificate!;
    expect(timestampDate(certificate.notAfter!)).toEqual(served.notAfter);
    expect(timestampDate(certificate.chainNotAfter!)).toEqual(served.chainNotAfter);
    expect(certificate).toMatchObject({ issuer: "CN=Vigil Test Intermediate, O=Vigil Tests", subjectAltNames: ["DNS:localhost", "IP Address:127.0.0.1"] });
    expect(certificate.daysLeft).toBe(9n);
    const warnings = await db.prisma.alertEvent.findMany({ where: { monitorId: id, type: "monitor.certificate_expiring" } });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ incidentId: null, details: { certificate: { region: "hostA-ams", daysLeft: 9, chainNotAfter: served.chainNotAfter.toISOString() } } });

    secure.setSecureContext(await pki.leaf(-1));
    await client.triggerMonitor({ id });
    const failed = await eventually(async () => {
      const { results } = await client.listCheckResults({ id });
      expect(results).toHaveLength(2);
      return results[0]!;
    });
    expect(failed).toMatchObject({ status: MonitorStatus.ERROR, failureReason: "tls" });
    expect(failed.error).toMatch(/certificate has expired/);
    // A failed handshake says nothing new: the region still shows the last certificate seen.
    expect((await client.getMonitorStatus({ id })).regions[0]!.certificate!.chainNotAfter).toEqual(certificate.chainNotAfter);
  });

  it("checks a gRPC health service: SERVING passes with its phases, NOT_SERVING fails as assertion and errors the status", async () => {
    const health = await startGrpcHealthServer();
    try {
      const { monitor } = await client.createGRPCMonitor({
        monitor: { name: "grpc", uri: health.uri, service: "orders.v1.Orders", periodicity: Periodicity.PERIODICITY_1H, regions: [Region.HOSTA_AMS], retry: 0n, headers: [{ key: "x-tenant", value: "e2e" }] },
      });
      const id = monitor!.id;
      health.set("orders.v1.Orders", "SERVING");
      const passed = await checkedOnce(id);
      expect(passed).toMatchObject({ status: MonitorStatus.ACTIVE, failureReason: "", statusCode: 0 });
      expect(passed.timing!.connectMs).toBeGreaterThan(0);
      expect(passed.timing!.firstByteMs).toBeGreaterThan(0);
      expect(passed.timing!.tlsMs).toBeUndefined();
      expect(health.calls.at(-1)).toMatchObject({ service: "orders.v1.Orders", metadata: { "x-tenant": "e2e" } });

      health.set("orders.v1.Orders", "NOT_SERVING");
      await client.triggerMonitor({ id });
      const failed = await eventually(async () => {
        const { results } = await client.listCheckResults({ id });
        expect(results).toHaveLength(2);
        return results[0]!;
      });
      expect(failed).toMatchObject({ status: MonitorStatus.ERROR, failureReason: "assertion", error: "health status NOT_SERVING of orders.v1.Orders, expected SERVING" });
      await eventually(async () => expect((await client.getMonitorStatus({ id })).regions).toEqual([expect.objectContaining({ region: Region.HOSTA_AMS, status: MonitorStatus.ERROR })]));
      const overview = (await client.listMonitorOverviews({ limit: 100 })).monitors.find((m) => m.id === id);
      expect(overview).toMatchObject({ kind: "grpc", target: health.uri, status: MonitorStatus.ERROR });
    } finally {
      await health.close();
    }
  });

  it("records a gRPC TLS target's certificate per region as for HTTPS, and fails an expired one as tls", async () => {
    const served = await pki.leaf(10);
    const health = await startGrpcHealthServer({ tls: served });
    try {
      const { monitor } = await client.createGRPCMonitor({
        monitor: { name: "grpc-tls", uri: `localhost:${health.port}`, tls: true, periodicity: Periodicity.PERIODICITY_1H, regions: [Region.HOSTA_AMS], retry: 0n },
      });
      const id = monitor!.id;
      const passed = await checkedOnce(id);
      expect(passed).toMatchObject({ status: MonitorStatus.ACTIVE, failureReason: "" });
      expect(passed.timing!.tlsMs).toBeGreaterThan(0);
      const certificate = (await client.getMonitorStatus({ id })).regions[0]!.certificate!;
      expect(timestampDate(certificate.notAfter!)).toEqual(served.notAfter);
      expect(certificate.daysLeft).toBe(9n);
      const warnings = await db.prisma.alertEvent.findMany({ where: { monitorId: id, type: "monitor.certificate_expiring" } });
      expect(warnings).toHaveLength(1);
    } finally {
      await health.close();
    }
    const expired = await startGrpcHealthServer({ tls: await pki.leaf(-1) });
    try {
      const { monitor } = await client.createGRPCMonitor({
        monitor: { name: "grpc-expired", uri: `localhost:${expired.port}`, tls: true, periodicity: Periodicity.PERIODICITY_1H, regions: [Region.HOSTA_AMS], retry: 0n },
      });
      const failed = await checkedOnce(monitor!.id);
      expect(failed).toMatchObject({ status: MonitorStatus.ERROR, failureReason: "tls" });
      expect(failed.error).toMatch(/certificate has expired/);
    } finally {
      await expired.close();
    }
  });

  it("runs a check on demand in every configured region, marked manual", async () => {
    const { monitor } = await client.createTCPMonitor({
      monitor: { name: "tcp", uri: new URL(targetUrl).host, periodicity: Periodicity.PERIODICITY_1H, regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] },
    });
    expect(await client.triggerMonitor({ id: monitor!.id })).toMatchObject({ success: true });
    const rows = await eventually(async () => {
      const found = await storedResults(monitor!.id);
      expect(found).toHaveLength(2);
      return found;
    });
    expect(rows.map((r) => [r.region, r.trigger, r.status]).sort()).toEqual([
      ["hostA-ams", "manual", "success"],
      ["hostB-fra", "manual", "success"],
    ]);
  });

  it("reports failures as errors in the region's status", async () => {
    const { monitor } = await client.createTCPMonitor({
      monitor: { name: "closed", uri: "127.0.0.1:9", periodicity: Periodicity.PERIODICITY_1H, retry: 0n },
    });
    await client.triggerMonitor({ id: monitor!.id });
    await eventually(async () =>
      expect((await client.getMonitorStatus({ id: monitor!.id })).regions).toEqual([
        expect.objectContaining({ region: Region.HOSTA_AMS, status: MonitorStatus.ERROR }),
      ]),
    );
    const [row] = await storedResults(monitor!.id);
    expect(row).toMatchObject({ status: "error", attempts: 1, error: expect.stringContaining("refused") });
  });

  it("fails a check whose JSON body assertion does not hold with reason assertion, read back through ListCheckResults", async () => {
    const url = new URL("/status.json", targetUrl).href;
    const create = (name: string, jsonBodyAssertions: { path: string; comparator: JsonComparator; target?: string }[]) =>
      client.createHTTPMonitor({ monitor: { name, url, periodicity: Periodicity.PERIODICITY_1H, retry: 0n, regions: [Region.HOSTA_AMS], jsonBodyAssertions } });
    const failing = await create("json failing", [
      { path: "$.status", comparator: JsonComparator.EXISTS },
      { path: "$.services[*].ok", comparator: JsonComparator.EQUAL, target: "true" },
    ]);
    const passing = await create("json passing", [
      { path: "$.status", comparator: JsonComparator.NOT_EQUAL, target: "down" },
      { path: "$.services[?@.ok == false]", comparator: JsonComparator.EXISTS },
    ]);
    for (const monitor of [failing, passing]) await client.triggerMonitor({ id: monitor.monitor!.id });

    const resultOf = (id: string) =>
      eventually(async () => {
        const { results } = await client.listCheckResults({ id });
        expect(results).toHaveLength(1);
        return results[0]!;
      });
    expect(await resultOf(failing.monitor!.id)).toMatchObject({
      status: MonitorStatus.ERROR,
      statusCode: 200,
      failureReason: "assertion",
      error: '$.services[*].ok selects 2 values (true, false); every one must satisfy eq "true"',
    });
    expect(await resultOf(passing.monitor!.id)).toMatchObject({ status: MonitorStatus.ACTIVE, statusCode: 200, failureReason: "", error: "" });
  });

  it("stops checking a deleted monitor", async () => {
    const { monitor } = await client.createHTTPMonitor({
      monitor: { name: "gone", url: targetUrl, periodicity: Periodicity.PERIODICITY_30S, active: true, regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] },
    });
    await client.deleteMonitor({ id: monitor!.id });
    await eventually(async () => {
      for (const region of REGION_IDS) {
        expect(await pipeline.scheduler.scheduledIn(region, monitor!.id)).toBeUndefined();
        const jobs = await pipeline.scheduler.queue(region).getJobs(["delayed", "waiting", "prioritized"]);
        expect(jobs.filter((job) => job.data.monitorId === monitor!.id)).toEqual([]);
      }
    });
  });

  it("stores every result exactly once when the control plane is down while agents keep checking", async () => {
    const { monitor } = await client.createHTTPMonitor({
      monitor: { name: "burst", url: `${targetUrl}?burst`, periodicity: Periodicity.PERIODICITY_1H },
    });
    const record = await new MonitorRepository(db.prisma).find((await db.prisma.workspace.findUniqueOrThrow({ where: { slug: "e2e" } })).id, monitor!.id);
    await stopControlPlane();

    // With the control plane gone, agents keep checking (jobs queued here directly) and results wait in Redis.
    const hitsBefore = hits;
    const queues = ["hostA-ams", "hostB-fra"] as const;
    const producerRedis = connectRedis(redisUrl, "test");
    const producer = new CheckScheduler(producerRedis, prefix, ["hostA-ams"]);
    for (let i = 0; i < 10; i++) {
      for (const region of queues) {
        await producer.queue(region).add("check", { monitorId: record!.id, kind: "http", config: record!.config, trigger: "manual" } as CheckJobData, {
          jobId: `burst-${region}-${i}`,
          removeOnComplete: true,
        });
      }
    }
    await producer.close();
    await producerRedis.quit();
    await eventually(() => expect(hits - hitsBefore).toBe(20));
    expect(await db.prisma.checkResult.count({ where: { monitorId: record!.id } })).toBe(0);

    await startControlPlane();
    await eventually(async () => expect(await db.prisma.checkResult.count({ where: { monitorId: record!.id } })).toBe(20));
    // A restart replays nothing twice.
    await stopControlPlane();
    await startControlPlane();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await db.prisma.checkResult.count({ where: { monitorId: record!.id } })).toBe(20);
    const counts = await db.prisma.resultCount.aggregate({ where: { monitorId: record!.id }, _sum: { successful: true } });
    expect(counts._sum.successful).toBe(20);
  });

  it("rebuilds schedules after Redis is flushed, and results keep flowing", async () => {
    const { monitor } = await client.createHTTPMonitor({
      monitor: { name: "flush", url: `${targetUrl}?flush`, periodicity: Periodicity.PERIODICITY_30S, active: true, regions: [Region.HOSTA_AMS] },
    });
    const scheduled = async () => (await pipeline.scheduler.scheduledIn("hostA-ams", monitor!.id))?.nextRunAt;
    await eventually(async () => expect(await scheduled()).toBeDefined());
    await deletePrefix(prefix);
    // The control plane notices the loss by itself (its reset watch, recovery-redis.test.ts times it) and may have
    // rebuilt the schedule already; reconciling again must leave exactly that schedule in place.
    await pipeline.reconcile();
    await eventually(async () => expect(await scheduled()).toBeDefined());
    await client.triggerMonitor({ id: monitor!.id });
    await eventually(
      async () => expect(await db.prisma.checkResult.count({ where: { monitorId: monitor!.id, trigger: "manual" } })).toBe(1),
      30_000,
    );
  });
});
