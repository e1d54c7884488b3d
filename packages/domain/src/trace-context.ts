/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) as HTTP checks use
 * it: each check starts a new trace, sampled, and names itself as the parent
 * span, so the target's own spans join the check's trace.
 */
import { randomBytes } from "node:crypto";
import { isValidSpanId, isValidTraceId, TraceFlags } from "@opentelemetry/api";

/** The request header; header names are case-insensitive, so a monitor's own is found in any case. */
export const TRACEPARENT_HEADER = "traceparent";

/** The ids one check sends and records. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero: the check's own span, the parent of the target's. */
  spanId: string;
}

/** A trace id as the API answers it and results carry it: W3C ids are lowercase, which the API's check does not ask. */
export const isTraceId = (value: unknown): value is string => typeof value === "string" && isValidTraceId(value) && value === value.toLowerCase();

/** Random ids, as the specification asks (an id of all zeros is invalid, so it is drawn again). */
export function newTraceContext(): TraceContext {
  let traceId: string;
  let spanId: string;
  do traceId = randomBytes(16).toString("hex");
  while (!isValidTraceId(traceId));
  do spanId = randomBytes(8).toString("hex");
  while (!isValidSpanId(spanId));
  return { traceId, spanId };
}

/** The header's value: version 00, the ids, and the sampled flag (the check's span is always recorded). */
export function traceparent({ traceId, spanId }: TraceContext): string {
  return `00-${traceId}-${spanId}-${TraceFlags.SAMPLED.toString(16).padStart(2, "0")}`;
}

/** Whether a monitor's own headers carry a traceparent, which is then sent as it is instead of the check's. */
export const hasOwnTraceparent = (headers: readonly { key: string }[]): boolean =>
  headers.some((header) => header.key.toLowerCase() === TRACEPARENT_HEADER);
