// A check's result as an agent reports it, for the benchmarks that append results or store them.
import type { RegionId } from "@vigil/domain";
import type { ResultMessage } from "@vigil/queue";

export interface ResultShape {
  id: string;
  monitorId: string;
  region: RegionId;
  startedAt: Date;
  status?: ResultMessage["status"];
  latencyMs?: number;
}

/** A scheduled HTTPS check's result, its phases in fixed shares of its latency; an error is an HTTP 503 after retries. */
export function checkResult({ id, monitorId, region, startedAt, status = "success", latencyMs = 80 }: ResultShape): ResultMessage {
  const failed = status === "error";
  const share = (part: number) => Math.round(latencyMs * part * 1000) / 1000;
  return {
    id,
    monitorId,
    region,
    trigger: "scheduled",
    startedAt: startedAt.toISOString(),
    latencyMs,
    timing: { dnsMs: share(0.025), connectMs: share(0.125), tlsMs: share(0.25), firstByteMs: share(0.5), transferMs: share(0.1) },
    statusCode: failed ? 503 : 200,
    status,
    error: failed ? "HTTP 503" : null,
    reason: failed ? "http_status" : null,
    attempts: failed ? 4 : 1,
  };
}
