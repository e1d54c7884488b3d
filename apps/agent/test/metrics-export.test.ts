import type { CheckOutcome } from "@vigil/checks";
import { AddressPolicy, parseMonitorConfig, type OpenTelemetryConfig } from "@vigil/domain";
import { createLogger } from "@vigil/logging";
import type { CheckJobData } from "@vigil/queue";
import { MetricExports, otlpUrl, type OtlpProtocol } from "../src/metrics-export";
import { startCollector, type Collector, type Export } from "./support/collector";
import { registry } from "../src/metrics";
import { decodeMetricsRequest, spansIn, type MetricsRequest } from "./support/otlp";

const logger = createLogger("silent", "agent");
const collectors: Collector[] = [];

async function collector(): Promise<Collector> {
  const started = await startCollector();
  collectors.push(started);
  return started;
}

afterAll(() => Promise.all(collectors.map((c) => c.close())));

/** The collectors are on loopback, which the SSRF guard refuses by default. */
const LOOPBACK_OPEN = new AddressPolicy({ allowPrivateTargets: true, allowedTargetCidrs: [] });

/** Spans wait for the shutdown too. */
const SPANS = { scheduledDelayMs: 60_000, timeoutMs: 2_000, maxQueueSize: 2_048 };

function exports(protocol: OtlpProtocol = "http/json", idleMs?: number, addressPolicy = LOOPBACK_OPEN, spans = SPANS): MetricExports {
  // A long interval: every test sends by shutting the exports down (or letting them idle), which flushes them.
  const settings = { protocol, intervalMs: 60_000, timeoutMs: 2_000, instanceId: "agent@test", region: "hostB-fra" as const, idleMs, addressPolicy, spans };
  return new MetricExports(settings, logger);
}

const httpJob = (monitorId: string, openTelemetry: OpenTelemetryConfig | null): CheckJobData => ({
  monitorId,
  kind: "http",
  trigger: "scheduled",
  config: { ...parseMonitorConfig("http", { name: `monitor ${monitorId}`, url: "http://127.0.0.1/", periodicity: "1m" }), openTelemetry },
});

const outcome: CheckOutcome = {
  status: "degraded",
  startedAt: new Date(),
  latencyMs: 1234.5,
  timing: { dnsMs: null, connectMs: 0.5, tlsMs: null, firstByteMs: 1200, transferMs: 34 },
  statusCode: 200,
  error: null,
  reason: null,
  attempts: 1,
  trace: null,
  durationMs: 1234.5,
  certificate: null,
};

/** Every data point of `name` in the exports, with its attributes as a plain object. */
function points(received: Export[], name: string) {
  return received
    .map((exported) => decodeMetricsRequest(exported))
    .flatMap((request: MetricsRequest) => request.resourceMetrics)
    .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
    .filter((metric) => metric.name === name)
    .flatMap((metric) => metric.histogram?.dataPoints ?? [])
    .map((point) => ({ ...point, attributes: Object.fromEntries(point.attributes.map((a) => [a.key, a.value])) }));
}

/** Every gauge point of `name` in the exports: its value and attributes as a plain object. */
function gaugePoints(received: Export[], name: string) {
  return received
    .flatMap((exported) => decodeMetricsRequest(exported).resourceMetrics)
    .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
    .filter((metric) => metric.name === name)
    .flatMap((metric) => metric.gauge?.dataPoints ?? [])
    .map((point) => ({ value: point.asDouble ?? point.asInt, attributes: Object.fromEntries(point.attributes.map((a) => [a.key, a.value])) }));
}

describe("OTLP metric export", () => {
  it.each<OtlpProtocol>(["http/json", "http/protobuf"])("posts a check's latency and phases to the monitor's endpoint with its headers (%s)", async (protocol) => {
    const target = await collector();
    const metrics = exports(protocol);
    metrics.record(httpJob("m1", { endpoint: target.origin, headers: [{ key: "Authorization", value: "Bearer t0ken" }] }), outcome);
    await metrics.shutdown();

    expect(target.exports).toHaveLength(1);
    const [sent] = target.exports;
    expect(sent!.path).toBe("/v1/metrics");
    expect(sent!.headers.authorization).toBe("Bearer t0ken");
    expect(sent!.headers["content-type"]).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");

    const request = decodeMetricsRequest(sent!);
    const resource = Object.fromEntries(request.resourceMetrics[0]!.resource.attributes.map((a) => [a.key, a.value]));
    expect(resource).toMatchObject({ "service.name": "vigil-agent", "service.instance.id": "agent@test" });

    const [duration] = points(target.exports, "vigil.check.duration");
    expect(duration!.attributes).toEqual({
      "vigil.monitor.id": "m1",
      "vigil.monitor.name": "monitor m1",
      "vigil.monitor.kind": "http",
      "vigil.region": "hostB-fra",
      "vigil.check.trigger": "scheduled",
      "vigil.check.status": "degraded",
      "http.response.status_code": 200,
    });
    expect(duration!.count).toBe(1);
    expect(duration!.sum).toBeCloseTo(1.2345, 9);

    const phases = points(target.exports, "vigil.check.phase.duration");
    const byPhase = Object.fromEntries(phases.map((p) => [p.attributes["vigil.check.phase"], p.sum]));
    // Phases that did not happen (no DNS for an IP, no TLS for http://) are not recorded.
    expect(byPhase).toEqual({ connect: 0.0005, first_byte: 1.2, transfer: 0.034 });
  });

  it.each<OtlpProtocol>(["http/json", "http/protobuf"])("reports the days left on the certificate a check saw, per monitor and region (%s)", async (protocol) => {
    const target = await collector();
    const metrics = exports(protocol);
    const startedAt = new Date("2026-11-29T12:00:00Z");
    const certificate = {
      notAfter: "2027-01-01T00:00:00.000Z",
      // The intermediate expires first: the chain's earliest expiry is what is left.
      chainNotAfter: "2026-12-09T18:00:00.000Z",
      issuer: "CN=Test CA",
      subjectAltNames: ["DNS:example.test"],
    };
    metrics.record(httpJob("m1", { endpoint: target.origin, headers: [] }), { ...outcome, startedAt, certificate });
    // A plain-HTTP check saw no certificate and reports none.
    metrics.record(httpJob("m2", { endpoint: target.origin, headers: [] }), outcome);
    await metrics.shutdown();

    expect(gaugePoints(target.exports, "vigil.check.certificate.days_left")).toEqual([
      {
        value: 10,
        attributes: { "vigil.monitor.id": "m1", "vigil.monitor.name": "monitor m1", "vigil.monitor.kind": "http", "vigil.region": "hostB-fra" },
      },
    ]);
  });

  it("names a failed check's reason in error.type", async () => {
    const target = await collector();
    const metrics = exports();
    const failed: CheckOutcome = {
      ...outcome,
      status: "error",
      statusCode: null,
      error: "timed out after 5000 ms while waiting for the response",
      reason: "timeout",
    };
    metrics.record(httpJob("m1", { endpoint: target.origin, headers: [] }), failed);
    await metrics.shutdown();

    const [duration] = points(target.exports, "vigil.check.duration");
    expect(duration!.attributes).toMatchObject({ "vigil.check.status": "error", "error.type": "timeout" });
    expect(duration!.attributes).not.toHaveProperty("http.response.status_code");
  });

  it("appends /v1/metrics (and /v1/traces for spans) to a base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT does", () => {
    expect(otlpUrl("http://collector:4318", "metrics")).toBe("http://collector:4318/v1/metrics");
    expect(otlpUrl("https://gateway.example/otlp/", "metrics")).toBe("https://gateway.example/otlp/v1/metrics");
    expect(otlpUrl("https://gateway.example/otlp/v1/metrics", "metrics")).toBe("https://gateway.example/otlp/v1/metrics");
    expect(otlpUrl("http://collector:4318", "traces")).toBe("http://collector:4318/v1/traces");
    expect(otlpUrl("https://gateway.example/otlp/v1/metrics", "traces")).toBe("https://gateway.example/otlp/v1/traces");
  });

  it("sends monitors of one destination together, and monitors with other headers separately", async () => {
    const target = await collector();
    const metrics = exports();
    const shared = { endpoint: `${target.origin}/v1/metrics`, headers: [{ key: "x-tenant", value: "a" }] };
    metrics.record(httpJob("m1", shared), outcome);
    metrics.record(httpJob("m2", shared), outcome);
    metrics.record(httpJob("m3", { ...shared, headers: [{ key: "x-tenant", value: "b" }] }), outcome);
    await metrics.shutdown();

    const tenants = target.exports.map((sent) => sent.headers["x-tenant"]).sort();
    expect(tenants).toEqual(["a", "b"]);
    const ids = (tenant: string) =>
      points(target.exports.filter((sent) => sent.headers["x-tenant"] === tenant), "vigil.check.duration").map((p) => p.attributes["vigil.monitor.id"]);
    expect(ids("a").sort()).toEqual(["m1", "m2"]);
    expect(ids("b")).toEqual(["m3"]);
  });

  it("exports nothing for a monitor without openTelemetry, and uses the agent's OTLP settings (trusted, not guarded) for an empty endpoint", async () => {
    const agentDefault = await collector();
    const previous = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = agentDefault.origin;
    try {
      const metrics = exports("http/json", undefined, AddressPolicy.STRICT);
      metrics.record(httpJob("silent", null), outcome);
      metrics.record(httpJob("defaulted", { endpoint: "", headers: [] }), outcome);
      await metrics.shutdown();
    } finally {
      if (previous === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = previous;
    }
    expect(agentDefault.exports.map((sent) => sent.path)).toEqual(["/v1/metrics"]);
    expect(points(agentDefault.exports, "vigil.check.duration").map((p) => p.attributes["vigil.monitor.id"])).toEqual(["defaulted"]);
  });

  it("refuses a monitor's own endpoint at an address the SSRF guard blocks, by address or by name", async () => {
    const target = await collector();
    const port = new URL(target.origin).port;
    const metrics = exports("http/json", undefined, AddressPolicy.STRICT);
    metrics.record(httpJob("literal", { endpoint: target.origin, headers: [] }), outcome);
    metrics.record(httpJob("named", { endpoint: `http://localhost:${port}`, headers: [] }), outcome);
    await metrics.shutdown();
    expect(target.exports).toEqual([]);

    const opened = exports("http/json", undefined, new AddressPolicy({ allowPrivateTargets: false, allowedTargetCidrs: ["127.0.0.1/32"] }));
    opened.record(httpJob("named", { endpoint: `http://localhost:${port}`, headers: [] }), outcome);
    await opened.shutdown();
    expect(points(target.exports, "vigil.check.duration").map((p) => p.attributes["vigil.monitor.id"])).toEqual(["named"]);
  });

  it("closes a destination no check has used for a while, sending what it held", async () => {
    const target = await collector();
    const metrics = exports("http/json", 100);
    try {
      metrics.record(httpJob("idle", { endpoint: target.origin, headers: [] }), outcome);
      for (let i = 0; i < 100 && target.exports.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(points(target.exports, "vigil.check.duration").map((p) => p.attributes["vigil.monitor.id"])).toEqual(["idle"]);
    } finally {
      await metrics.shutdown();
    }
  });

  it("never throws while recording, even for an endpoint the API would have refused", async () => {
    const metrics = exports();
    expect(() => metrics.record(httpJob("m1", { endpoint: "not a url", headers: [] }), outcome)).not.toThrow();
    await expect(metrics.shutdown()).resolves.toBeUndefined();
  });

  it("gives up on an unreachable endpoint without throwing", async () => {
    const gone = await startCollector();
    await gone.close();
    const metrics = exports();
    metrics.record(httpJob("m1", { endpoint: gone.origin, headers: [] }), outcome);
    await expect(metrics.shutdown()).resolves.toBeUndefined();
  });
});

describe("OTLP span export", () => {
  const trace = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
  const traced: CheckOutcome = { ...outcome, trace };
  const tracedJob = (monitorId: string, endpoint: string): CheckJobData => {
    const job = httpJob(monitorId, { endpoint, headers: [] });
    return { ...job, config: { ...job.config, url: "http://user:secret@127.0.0.1:8080/health?x=1", method: "POST" } } as CheckJobData;
  };

  it.each<OtlpProtocol>(["http/json", "http/protobuf"])(
    "sends an HTTP check as a client span with the traceparent's ids, HTTP semantic conventions and its phases as child spans (%s)",
    async (protocol) => {
      const target = await collector();
      const metrics = exports(protocol);
      metrics.record(tracedJob("m1", target.origin), traced);
      await metrics.shutdown();

      const spans = spansIn(target.exports);
      const check = spans.find((span) => span.spanId === trace.spanId);
      expect(check).toMatchObject({ traceId: trace.traceId, name: "POST", kind: 3 });
      expect(check!.parentSpanId).toBeUndefined();
      expect(check!.attributes).toMatchObject({
        "http.request.method": "POST",
        "url.full": "http://REDACTED:REDACTED@127.0.0.1:8080/health?x=1",
        "server.address": "127.0.0.1",
        "server.port": 8080,
        "http.response.status_code": 200,
        "vigil.monitor.id": "m1",
        "vigil.check.status": "degraded",
        "vigil.check.attempts": 1,
      });
      expect(check!.attributes).not.toHaveProperty("error.type");
      const phases = spans.filter((span) => span !== check);
      expect(phases.map((span) => span.name)).toEqual(["connect", "first_byte", "transfer"]);
      for (const phase of phases) expect(phase).toMatchObject({ traceId: trace.traceId, parentSpanId: trace.spanId, kind: 1 });
      expect(new Set(phases.map((span) => span.spanId)).size).toBe(3);
    },
  );

  it("marks a failed check's span as an error, with error.type", async () => {
    const target = await collector();
    const metrics = exports();
    const failed: CheckOutcome = { ...traced, status: "error", statusCode: null, error: "connection refused", reason: "connect" };
    metrics.record(tracedJob("m1", target.origin), failed);
    await metrics.shutdown();
    const check = spansIn(target.exports).find((span) => span.spanId === trace.spanId);
    expect(check!.attributes).toMatchObject({ "error.type": "connect" });
    expect(check!.attributes).not.toHaveProperty("http.response.status_code");
    expect(check!.status).toMatchObject({ code: 2, message: "connection refused" });
  });

  it("sends no span for a check that sent no traceparent of its own", async () => {
    const target = await collector();
    const metrics = exports();
    metrics.record(tracedJob("m1", target.origin), outcome);
    await metrics.shutdown();
    expect(target.exports.map((sent) => sent.path)).toEqual(["/v1/metrics"]);
  });

  it("holds no more spans than its queue while the collector is away: the rest are dropped and counted", async () => {
    const gone = await startCollector();
    await gone.close();
    const dropped = async (reason: string) =>
      (await registry.getSingleMetric("vigil_agent_spans_dropped_total")!.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
    const [queueFull, exportFailed] = [await dropped("queue_full"), await dropped("export_failed")];
    // Each check is 4 spans (the check and 3 phases): the first fills the queue, the other two find no room.
    const metrics = exports("http/json", undefined, LOOPBACK_OPEN, { scheduledDelayMs: 60_000, timeoutMs: 2_000, maxQueueSize: 4 });
    for (let i = 0; i < 3; i += 1) metrics.record(tracedJob("m1", gone.origin), traced);
    expect(await dropped("queue_full")).toBe(queueFull + 8);
    await expect(metrics.shutdown()).resolves.toBeUndefined();
    expect(await dropped("export_failed")).toBe(exportFailed + 4);
  });
});
