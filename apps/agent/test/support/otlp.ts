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
}

export interface HistogramPoint {
  attributes: Attribute[];
  count: number;
  sum: number;
  bucketCounts: number[];
  explicitBounds: number[];
}

let compiled: { registry: FileRegistry; message: DescMessage } | undefined;

/** The request message, from the protocol subset in otlp/metrics.proto (compiled by buf once per run). */
function requestSchema(): { registry: FileRegistry; message: DescMessage } {
  if (compiled) return compiled;
  const buf = resolve(__dirname, "../../node_modules/.bin/buf");
  const image = execFileSync(buf, ["build", resolve(__dirname, "otlp"), "-o", "-", "--as-file-descriptor-set"]);
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, image));
  const message = registry.getMessage("opentelemetry.proto.metrics.v1.ExportMetricsServiceRequest");
  if (message === undefined) throw new Error("ExportMetricsServiceRequest missing from otlp/metrics.proto");
  compiled = { registry, message };
  return compiled;
}

/** Decodes what the collector received, by its content type. */
export function decodeMetricsRequest(received: Export): MetricsRequest {
  const contentType = received.headers["content-type"];
  if (contentType === "application/json") return normalise(JSON.parse(received.body.toString("utf8")) as JsonValue);
  if (contentType === "application/x-protobuf") {
    const { registry, message } = requestSchema();
    return normalise(toJson(message, fromBinary(message, received.body), { registry }));
  }
  throw new Error(`unexpected content type ${String(contentType)}`);
}

/**
 * Both encodings as one shape: 64-bit integers (strings in JSON) become
 * numbers, and AnyValue's { stringValue | intValue | doubleValue | boolValue }
 * becomes the plain value.
 */
function normalise(value: JsonValue): MetricsRequest {
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
  return walk(value) as MetricsRequest;
}

const INTEGER_FIELDS = new Set(["count", "bucketCounts", "startTimeUnixNano", "timeUnixNano"]);
