/**
 * OpenTelemetry export: the checks of a monitor that sets `openTelemetry` are
 * recorded as OTLP metrics and pushed over HTTP to the monitor's endpoint, or
 * to the agent's own OTEL_EXPORTER_OTLP_* settings when that endpoint is empty.
 * HTTP checks that sent a traceparent go to the same collector as spans
 * (span-export.ts).
 *
 * One MeterProvider and span queue per destination (endpoint and headers), so
 * monitors that share a collector share its exports. A destination no check
 * has used for IDLE_MS is shut down, which sends what it still holds; so does
 * the agent's shutdown. Export failures are logged and never touch the
 * check's result.
 */
import { isIP } from "node:net";
import { diag, DiagLogLevel, type Attributes, type Gauge, type Histogram } from "@opentelemetry/api";
import { OTLPMetricExporter as JsonExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtobufExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import type { CheckOutcome, Timing } from "@vigil/checks";
import type { AddressPolicy } from "@vigil/domain/address-policy";
import { certificateDaysLeft } from "@vigil/domain/certificates";
import type { OpenTelemetryConfig } from "@vigil/domain/monitor-config";
import type { RegionId } from "@vigil/domain/regions";
import type { Logger } from "@vigil/logging";
import type { CheckJobData } from "@vigil/queue";
import { countDroppedSpans } from "./metrics";
import { SpanQueue, checkSpans, type SpanQueueSettings } from "./span-export";

/** OTLP over HTTP, encoded as protobuf (the OTLP default) or JSON. */
export type OtlpProtocol = "http/protobuf" | "http/json";

export interface MetricExportSettings {
  protocol: OtlpProtocol;
  /** How often each destination sends what it has recorded. */
  intervalMs: number;
  /** How long one send may take. */
  timeoutMs: number;
  /** Identifies this agent in the exported resource (service.instance.id). */
  instanceId: string;
  region: RegionId;
  /** A destination unused this long is shut down; the next check that names it starts it again. */
  idleMs?: number;
  /**
   * Guards a monitor's own endpoint, which a user chose; the agent's
   * OTEL_EXPORTER_OTLP_* endpoint (an empty monitor endpoint) is the
   * operator's and is not guarded.
   */
  addressPolicy: AddressPolicy;
  /** How check spans are batched (OTEL_BSP_*); they go with `protocol` too. */
  spans: SpanQueueSettings;
}

const IDLE_MS = 10 * 60_000;

/** Seconds; check latencies range from a loopback millisecond to a 120 s timeout. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120];

/** Timing field -> the `vigil.check.phase` attribute value. */
const PHASES: [keyof Timing, string][] = [
  ["dnsMs", "dns"],
  ["connectMs", "connect"],
  ["tlsMs", "tls"],
  ["firstByteMs", "first_byte"],
  ["transferMs", "transfer"],
];

interface Destination {
  provider: MeterProvider;
  duration: Histogram;
  phaseDuration: Histogram;
  certificateDaysLeft: Gauge;
  spans: SpanQueue;
  resource: Resource;
  lastUsed: number;
}

export class MetricExports {
  private readonly destinations = new Map<string, Destination>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleMs: number;

  constructor(
    private readonly settings: MetricExportSettings,
    private readonly logger: Logger,
  ) {
    routeDiagnostics(logger);
    this.idleMs = settings.idleMs ?? IDLE_MS;
    this.sweeper = setInterval(() => void this.shutDownIdle(), Math.min(this.idleMs, 60_000)).unref();
  }

  /** Records a finished check, when its monitor exports metrics; never throws, so the result goes out regardless. */
  record(job: CheckJobData, outcome: CheckOutcome): void {
    const target = job.config.openTelemetry;
    if (target === null) return;
    try {
      this.recordTo(this.destination(target), job, outcome);
    } catch (error) {
      this.logger.warn({ err: error, monitorId: job.monitorId }, "OpenTelemetry export: recording a check failed");
    }
  }

  private recordTo(destination: Destination, job: CheckJobData, outcome: CheckOutcome): void {
    const monitor: Attributes = {
      "vigil.monitor.id": job.monitorId,
      "vigil.monitor.name": job.config.name,
      "vigil.monitor.kind": job.kind,
      "vigil.region": this.settings.region,
    };
    const attributes: Attributes = {
      ...monitor,
      "vigil.check.trigger": job.trigger,
      "vigil.check.status": outcome.status,
    };
    if (outcome.statusCode !== null) attributes["http.response.status_code"] = outcome.statusCode;
    // OpenTelemetry's name for the class of error an operation ended with, set only when it failed.
    if (outcome.reason !== null) attributes["error.type"] = outcome.reason;
    destination.duration.record(outcome.latencyMs / 1000, attributes);
    for (const [field, phase] of PHASES) {
      const ms = outcome.timing[field];
      if (ms !== null) destination.phaseDuration.record(ms / 1000, { ...attributes, "vigil.check.phase": phase });
    }
    if (outcome.certificate) destination.certificateDaysLeft.record(certificateDaysLeft(outcome.certificate, outcome.startedAt), monitor);
    if (job.kind === "http") destination.spans.add(checkSpans(job.config, outcome, { resource: destination.resource, scope: SCOPE, attributes }));
  }

  /** Sends what every destination holds and stops them all. */
  async shutdown(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.destinations.values()];
    this.destinations.clear();
    await Promise.all(all.map((destination) => this.stop(destination)));
  }

  private destination(target: OpenTelemetryConfig): Destination {
    const key = JSON.stringify([target.endpoint, target.headers]);
    let destination = this.destinations.get(key);
    if (destination === undefined) {
      destination = this.start(target);
      this.destinations.set(key, destination);
    }
    destination.lastUsed = performance.now();
    return destination;
  }

  private start(target: OpenTelemetryConfig): Destination {
    const { protocol, intervalMs, timeoutMs, instanceId, addressPolicy } = this.settings;
    const monitorsOwn = target.endpoint !== "";
    const url = monitorsOwn ? otlpUrl(target.endpoint, "metrics") : undefined;
    // A host name is checked by the lookup on every connection; an IP address never reaches a lookup.
    const host = url === undefined ? "" : new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
    if (isIP(host) !== 0) addressPolicy.assertAllowed(host);
    const options = {
      // Without a url the exporter takes OTEL_EXPORTER_OTLP_(METRICS_)ENDPOINT, else localhost:4318.
      url,
      headers: headerRecord(target.headers),
      timeoutMillis: timeoutMs,
      ...(monitorsOwn && { httpAgentOptions: { keepAlive: true, lookup: addressPolicy.lookup() } }),
    };
    const exporter = protocol === "http/json" ? new JsonExporter(options) : new ProtobufExporter(options);
    // Without a url the trace exporter takes OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, else localhost:4318.
    const traceOptions = { ...options, url: monitorsOwn ? otlpUrl(target.endpoint, "traces") : undefined, timeoutMillis: this.settings.spans.timeoutMs };
    const traceExporter = protocol === "http/json" ? new JsonTraceExporter(traceOptions) : new ProtobufTraceExporter(traceOptions);
    const resource = resourceFromAttributes({ "service.name": "vigil-agent", "service.instance.id": instanceId });
    const provider = new MeterProvider({
      resource,
      readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: intervalMs, exportTimeoutMillis: timeoutMs })],
    });
    const meter = provider.getMeter("vigil-agent");
    const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
    return {
      provider,
      duration: meter.createHistogram("vigil.check.duration", {
        unit: "s",
        description: "Latency of a check's final attempt",
        advice,
      }),
      phaseDuration: meter.createHistogram("vigil.check.phase.duration", {
        unit: "s",
        description: "Time a check's final attempt spent in one phase (dns, connect, tls, first_byte, transfer)",
        advice,
      }),
      certificateDaysLeft: meter.createGauge("vigil.check.certificate.days_left", {
        unit: "d",
        description: "Whole days until the earliest expiry in the certificate chain the check's TLS handshake verified",
      }),
      spans: new SpanQueue(traceExporter, this.settings.spans, countDroppedSpans),
      resource,
      lastUsed: performance.now(),
    };
  }

  private async shutDownIdle(): Promise<void> {
    const now = performance.now();
    for (const [key, destination] of this.destinations) {
      if (now - destination.lastUsed < this.idleMs) continue;
      this.destinations.delete(key);
      await this.stop(destination);
    }
  }

  private async stop(destination: Destination): Promise<void> {
    const [metrics, spans] = await Promise.allSettled([destination.provider.shutdown(), destination.spans.shutdown()]);
    if (metrics.status === "rejected") this.logger.warn({ err: metrics.reason }, "OpenTelemetry export: sending the last metrics failed");
    if (spans.status === "rejected") this.logger.warn({ err: spans.reason }, "OpenTelemetry export: sending the last spans failed");
  }
}

/** The instrumentation scope of the check spans. */
const SCOPE = { name: "vigil-agent" };

/**
 * The URL a signal (metrics, traces) is posted to. The endpoint is a base URL
 * that /v1/<signal> is appended to, as OTEL_EXPORTER_OTLP_ENDPOINT is, so
 * "https://collector:4318" and "https://gateway.example/otlp" both work; one
 * that already ends in /v1/metrics or /v1/traces names that base too.
 */
export function otlpUrl(endpoint: string, signal: "metrics" | "traces"): string {
  const url = new URL(endpoint);
  const base = url.pathname.replace(/\/+$/, "").replace(/\/v1\/(metrics|traces)$/, "");
  url.pathname = `${base}/v1/${signal}`;
  return url.toString();
}

/** A header given twice is sent once, its values joined with ", " as HTTP allows. */
function headerRecord(headers: OpenTelemetryConfig["headers"]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const { key, value } of headers) {
    const name = key.toLowerCase();
    record[name] = record[name] === undefined ? value : `${record[name]}, ${value}`;
  }
  return record;
}

/** The SDK reports failed exports through its (global) diag logger: into the agent's JSON log, warnings and up. */
function routeDiagnostics(logger: Logger): void {
  const otel = logger.child({ component: "opentelemetry" });
  diag.setLogger(
    {
      error: (message, ...args) => otel.warn({ details: args.map(String) }, message),
      warn: (message, ...args) => otel.warn({ details: args.map(String) }, message),
      info: (message) => otel.debug(message),
      debug: (message) => otel.trace(message),
      verbose: (message) => otel.trace(message),
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}
