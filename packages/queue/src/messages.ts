import type { CheckOutcome, CheckStatus, Timing } from "@vigil/checks";
import { isFailureReason, type FailureReason } from "@vigil/domain/alerting";
import { isCertificateInfo, type CertificateInfo } from "@vigil/domain/certificates";
import type { MonitorConfigByKind, MonitorKind } from "@vigil/domain/monitor-config";
import type { RegionId } from "@vigil/domain/regions";
import { isTraceId } from "@vigil/domain/trace-context";

export type Trigger = "scheduled" | "manual";

/** A check job: everything an agent needs, so agents never read the database. */
export type CheckJobData = {
  [K in MonitorKind]: { monitorId: string; kind: K; config: MonitorConfigByKind[K]; trigger: Trigger };
}[MonitorKind];

/** A check's result on its way to the control plane. */
export interface ResultMessage {
  /** Unique per check run, so a result delivered twice is stored once. */
  id: string;
  monitorId: string;
  region: RegionId;
  trigger: Trigger;
  startedAt: string;
  latencyMs: number;
  timing: Timing;
  statusCode: number | null;
  status: CheckStatus;
  error: string | null;
  /** The error's kind; null on success. */
  reason: FailureReason | null;
  /** The trace id of the traceparent an HTTP check sent; null (or absent, from agents older than traces) when none. */
  traceId?: string | null;
  /** The certificate an HTTPS check saw; null (or absent, from agents older than certificates) when none. */
  certificate?: CertificateInfo | null;
  attempts: number;
}

export function resultMessage(id: string, job: CheckJobData, region: RegionId, outcome: CheckOutcome): ResultMessage {
  return {
    id,
    monitorId: job.monitorId,
    region,
    trigger: job.trigger,
    startedAt: outcome.startedAt.toISOString(),
    latencyMs: outcome.latencyMs,
    timing: outcome.timing,
    statusCode: outcome.statusCode,
    status: outcome.status,
    error: outcome.error,
    reason: outcome.reason,
    traceId: outcome.trace?.traceId ?? null,
    certificate: outcome.certificate,
    attempts: outcome.attempts,
  };
}

/** Stream entries carry the message as one JSON field. */
export const RESULT_FIELD = "result";
export const encodeResult = (message: ResultMessage): [string, string] => [RESULT_FIELD, JSON.stringify(message)];
export function decodeResult(fields: string[]): ResultMessage | null {
  const index = fields.indexOf(RESULT_FIELD);
  if (index < 0 || index + 1 >= fields.length) return null;
  try {
    const message = JSON.parse(fields[index + 1]!) as ResultMessage;
    // Agents older than failure reasons send none, and a newer one may send a reason this version does not know.
    if (!isFailureReason(message.reason)) message.reason = null;
    // Older agents send no trace id; anything but a valid one is stored as none.
    if (!isTraceId(message.traceId)) message.traceId = null;
    // Likewise a certificate: older agents send none, and one this version cannot read is none.
    if (!isCertificateInfo(message.certificate)) message.certificate = null;
    return message;
  } catch {
    return null;
  }
}
