/**
 * Traces: an HTTP check that sent a traceparent (docs/checks.md "Traces") is
 * exported as one OTLP span of kind CLIENT whose trace and span ids are those
 * of the header, so that the target's own spans (children of that header)
 * and the check are one trace. The phases of its final attempt are child
 * spans. metrics-export.ts sends them to the same collector as the metrics.
 *
 * The span is built after the check from its outcome rather than timed live
 * through a Tracer: the check runs on a check thread, and its ids were
 * chosen there (by the check, for the header) before any span could exist.
 */
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type HrTime, type SpanContext } from "@opentelemetry/api";
import { ExportResultCode, hrTimeDuration, millisToHrTime, type ExportResult, type InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import { BatchSpanProcessor, RandomIdGenerator, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace";
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from "@opentelemetry/semantic-conventions";
import type { CheckOutcome, Timing } from "@vigil/checks";
import type { HttpMonitorConfig } from "@vigil/domain/monitor-config";

/** The phases of an attempt in the order they happen, with their child spans' names. */
const PHASE_SPANS: [keyof Timing, string][] = [
  ["dnsMs", "dns"],
  ["connectMs", "connect"],
  ["tlsMs", "tls"],
  ["firstByteMs", "first_byte"],
  ["transferMs", "transfer"],
];

const ids = new RandomIdGenerator();

/** What every span of one destination shares. */
export interface SpanOrigin {
  resource: Resource;
  scope: InstrumentationScope;
  /** Attributes of the check (monitor, region, status), as the metrics carry them. */
  attributes: Attributes;
}

/**
 * The check's span and its phases' child spans; none when the check sent no traceparent of its own.
 * The span lasts from the check's start to its end (retries included); the phases are laid out backwards
 * from that end, as the final attempt (and its final redirect hop, whose phases the timing holds) ended there.
 */
export function checkSpans(config: HttpMonitorConfig, outcome: CheckOutcome, origin: SpanOrigin): ReadableSpan[] {
  if (outcome.trace === null) return [];
  const context: SpanContext = { traceId: outcome.trace.traceId, spanId: outcome.trace.spanId, traceFlags: TraceFlags.SAMPLED };
  const startMs = outcome.startedAt.getTime();
  const endMs = startMs + outcome.durationMs;
  const url = new URL(config.url);
  const attributes: Attributes = {
    ...origin.attributes,
    [ATTR_HTTP_REQUEST_METHOD]: config.method,
    [ATTR_URL_FULL]: urlFull(url),
    [ATTR_SERVER_ADDRESS]: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    [ATTR_SERVER_PORT]: Number(url.port || (url.protocol === "https:" ? 443 : 80)),
    "vigil.check.attempts": outcome.attempts,
  };
  if (outcome.statusCode !== null) attributes[ATTR_HTTP_RESPONSE_STATUS_CODE] = outcome.statusCode;
  if (outcome.reason !== null) attributes[ATTR_ERROR_TYPE] = outcome.reason;
  const check = span(origin, {
    name: config.method,
    context,
    startMs,
    endMs,
    attributes,
    status: outcome.error === null ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: outcome.error },
  });

  const phases: ReadableSpan[] = [];
  let phaseEnd = endMs;
  for (const [field, name] of [...PHASE_SPANS].reverse()) {
    const ms = outcome.timing[field];
    if (ms === null) continue;
    const phaseStart = Math.max(startMs, phaseEnd - ms);
    const child = { traceId: context.traceId, spanId: ids.generateSpanId(), traceFlags: TraceFlags.SAMPLED };
    phases.unshift(span(origin, { name, context: child, parent: context, startMs: phaseStart, endMs: phaseEnd, kind: SpanKind.INTERNAL }));
    phaseEnd = phaseStart;
  }
  return [check, ...phases];
}

/** url.full without the credentials a URL may carry, as the semantic conventions ask. */
function urlFull(url: URL): string {
  const shown = new URL(url);
  if (shown.username !== "") shown.username = "REDACTED";
  if (shown.password !== "") shown.password = "REDACTED";
  shown.hash = "";
  return shown.href;
}

interface SpanParts {
  name: string;
  context: SpanContext;
  parent?: SpanContext;
  startMs: number;
  endMs: number;
  kind?: SpanKind;
  attributes?: Attributes;
  status?: ReadableSpan["status"];
}

function span(origin: SpanOrigin, parts: SpanParts): ReadableSpan {
  const startTime: HrTime = millisToHrTime(parts.startMs);
  const endTime: HrTime = millisToHrTime(parts.endMs);
  return {
    name: parts.name,
    kind: parts.kind ?? SpanKind.CLIENT,
    spanContext: () => parts.context,
    parentSpanContext: parts.parent,
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    status: parts.status ?? { code: SpanStatusCode.UNSET },
    attributes: parts.attributes ?? {},
    links: [],
    events: [],
    ended: true,
    resource: origin.resource,
    instrumentationScope: origin.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** Why spans were not delivered: no room while the collector was slow or away, or a send that failed. */
export const SPAN_DROP_REASONS = ["queue_full", "export_failed"] as const;
export type SpanDropReason = (typeof SPAN_DROP_REASONS)[number];

export interface SpanQueueSettings {
  /** Spans held at most, waiting or being sent; beyond it new spans are dropped (OTEL_BSP_MAX_QUEUE_SIZE). */
  maxQueueSize: number;
  /** How long spans wait to be sent together (OTEL_BSP_SCHEDULE_DELAY). */
  scheduledDelayMs: number;
  /** How long one send may take. */
  timeoutMs: number;
}

/**
 * The SDK's batch processor, bounded so that a collector that is away costs
 * no memory: the spans it holds (waiting, or in an export not yet answered)
 * never exceed maxQueueSize, and a span beyond that is dropped and counted
 * (`dropped`), where the SDK would drop it without a count anyone can read.
 * Queuing a span never waits: exports run on the batch processor's timer.
 */
export class SpanQueue {
  private readonly processor: BatchSpanProcessor;
  private held = 0;

  constructor(
    exporter: SpanExporter,
    private readonly settings: SpanQueueSettings,
    private readonly dropped: (spans: number, reason: SpanDropReason) => void,
  ) {
    const counted: SpanExporter = {
      export: (spans, done) =>
        exporter.export(spans, (result: ExportResult) => {
          this.held -= spans.length;
          // The OTLP exporter has retried what it may by now: these spans are lost.
          if (result.code !== ExportResultCode.SUCCESS) this.dropped(spans.length, "export_failed");
          done(result);
        }),
      shutdown: () => exporter.shutdown(),
      forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
    };
    this.processor = new BatchSpanProcessor({
      exporter: counted,
      maxQueueSize: settings.maxQueueSize,
      maxExportBatchSize: Math.min(512, settings.maxQueueSize),
      scheduledDelayMillis: settings.scheduledDelayMs,
      exportTimeoutMillis: settings.timeoutMs,
    });
  }

  /** Queues the spans of one check, all or none. */
  add(spans: ReadableSpan[]): void {
    if (spans.length === 0) return;
    if (this.held + spans.length > this.settings.maxQueueSize) {
      this.dropped(spans.length, "queue_full");
      return;
    }
    this.held += spans.length;
    for (const one of spans) this.processor.onEnd(one);
  }

  /** Sends what is held and stops. */
  shutdown(): Promise<void> {
    return this.processor.shutdown();
  }
}
