import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { createFileRegistry, fromBinary, toJson, type DescMessage, type FileRegistry, type JsonValue } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import type { Export } from "./collector";

/** An OTLP metrics export request, read the same whether it came as JSON or as protobuf. */
export interface MetricsRequest {
  resourceMetrics: {
    resource: { attributes: Attribute[] };
    scopeMetrics: { scope: { name: string }; metrics: Metric[] }[];
  }[];
}

export interface Attribute {
  key: string;
  value: string | number | boolean;
}

export interface Metric {
  name: string;
  unit: string;
  histogram?: { dataPoints: HistogramPoint[] };
  gauge?: { dataPoints: NumberPoint[] };
}

export interface NumberPoint {
  attributes: Attribute[];
  asDouble?: number;
  asInt?: number;
}

export interface HistogramPoint {
  attributes: Attribute[];
  count: number;
  sum: number;
  bucketCounts: number[];
  explicitBounds: number[];
}

/** An OTLP trace export request, read the same whether it came as JSON or as protobuf; ids as lowercase hex. */
export interface TracesRequest {
  resourceSpans: {
    resource: { attributes: Attribute[] };
    scopeSpans: { scope: { name: string }; spans: Span[] }[];
  }[];
}

export interface Span {
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** 3: CLIENT, 1: INTERNAL. */
  kind: number;
  startTimeUnixNano: number;
  endTimeUnixNano: number;
  /** Absent when empty (protobuf). */
  attributes?: Attribute[];
  /** code 2: ERROR. */
  status?: { code?: number; message?: string };
}

let registry: FileRegistry | undefined;

/** The protocol subsets in otlp/ (compiled by buf once per run). */
function requestSchema(name: string): { registry: FileRegistry; message: DescMessage } {
  if (registry === undefined) {
    const buf = resolve(__dirname, "../../node_modules/.bin/buf");
    const image = execFileSync(buf, ["build", resolve(__dirname, "otlp"), "-o", "-", "--as-file-descriptor-set"]);
    registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, image));
  }
  const message = registry.getMessage(name);
  if (message === undefined) throw new Error(`${name} missing from otlp/`);
  return { registry, message };
}

/** Decodes what the collector received, by its content type, into the JSON encoding's shape. */
function decodeRequest(received: Export, name: string): JsonValue {
  const contentType = received.headers["content-type"];
  if (contentType === "application/json") return JSON.parse(received.body.toString("utf8")) as JsonValue;
  if (contentType === "application/x-protobuf") {
    const { registry: types, message } = requestSchema(name);
    return toJson(message, fromBinary(message, received.body), { registry: types });
  }
  throw new Error(`unexpected content type ${String(contentType)}`);
}

export function decodeMetricsRequest(received: Export): MetricsRequest {
  return normalise(decodeRequest(received, "opentelemetry.proto.metrics.v1.ExportMetricsServiceRequest")) as MetricsRequest;
}

/** Protobuf's JSON writes bytes as base64, OTLP's JSON encoding writes ids as hex: both read as hex. */
export function decodeTracesRequest(received: Export): TracesRequest {
  const json = received.headers["content-type"] === "application/json";
  const hex = (id: unknown) => (typeof id !== "string" || json ? id : Buffer.from(id, "base64").toString("hex"));
  const request = normalise(decodeRequest(received, "opentelemetry.proto.trace.v1.ExportTraceServiceRequest")) as TracesRequest;
  for (const span of request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))) {
    span.traceId = hex(span.traceId) as string;
    span.spanId = hex(span.spanId) as string;
    if (span.parentSpanId !== undefined && span.parentSpanId !== "") span.parentSpanId = hex(span.parentSpanId) as string;
    else delete span.parentSpanId;
  }
  return request;
}

/**
 * Both encodings as one shape: 64-bit integers (strings in JSON) become
 * numbers, and AnyValue's { stringValue | intValue | doubleValue | boolValue }
 * becomes the plain value.
 */
function normalise(value: JsonValue): unknown {
  const walk = (node: JsonValue, key?: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, key));
    if (node === null || typeof node !== "object") {
      return typeof node === "string" && INTEGER_FIELDS.has(key ?? "") ? Number(node) : node;
    }
    if (key === "value") {
      const [kind, inner] = Object.entries(node)[0] ?? [];
      return kind === "intValue" ? Number(inner) : inner;
    }
    return Object.fromEntries(Object.entries(node).map(([name, inner]) => [name, walk(inner, name)]));
  };
  return walk(value);
}

const INTEGER_FIELDS = new Set(["asInt", "count", "bucketCounts", "startTimeUnixNano", "timeUnixNano", "endTimeUnixNano"]);

/** Every span the collector received at /v1/traces, with its attributes as a plain object. */
export function spansIn(received: Export[]) {
  return received
    .filter((sent) => sent.path === "/v1/traces")
    .flatMap((sent) => decodeTracesRequest(sent).resourceSpans)
    .flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
    // Protobuf's JSON leaves out an empty list.
    .map((span) => ({ ...span, attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, a.value])) }));
}
