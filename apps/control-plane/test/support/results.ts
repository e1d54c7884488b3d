import { connectRedis, encodeResult, resultsStreamKey, type ResultMessage } from "@vigil/queue";
import { redisServerUrl } from "../../../../test/redis";

let sequence = 0;

/** A check's result as an agent reports it: a failure is an HTTP 503 after retries, a degraded check took 4 s. */
export function checkResult(
  monitorId: string,
  region: ResultMessage["region"],
  startedAt: string,
  status: ResultMessage["status"] = "success",
  overrides: Partial<ResultMessage> = {},
): ResultMessage {
  const failed = status === "error";
  return {
    id: `${region}:job-${process.pid}-${++sequence}`,
    monitorId,
    region,
    trigger: "scheduled",
    startedAt,
    latencyMs: status === "degraded" ? 4_000 : 80,
    timing: { dnsMs: null, connectMs: 1.5, tlsMs: null, firstByteMs: 70, transferMs: 8.5 },
    statusCode: failed ? 503 : 200,
    status,
    error: failed ? "HTTP 503" : null,
    reason: failed ? "http_status" : null,
    attempts: failed ? 4 : 1,
    ...overrides,
  };
}

/** Appends results to the stream as agents do, for the control planes under test to consume. */
export async function publishResults(prefix: string, results: ResultMessage[], redisUrl = redisServerUrl()): Promise<void> {
  const redis = connectRedis(redisUrl, "test-agent");
  try {
    const pipeline = redis.pipeline();
    for (const result of results) pipeline.xadd(resultsStreamKey(prefix), "*", ...encodeResult(result));
    await pipeline.exec();
  } finally {
    await redis.quit();
  }
}
