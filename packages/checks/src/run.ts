import { mayRetry, retryBackoffMs } from "@vigil/domain/check-rules";
import { effectiveTimeoutMs } from "@vigil/domain/limits";
import type { MonitorConfigByKind, MonitorKind } from "@vigil/domain/monitor-config";
import { PERIODICITY_MS } from "@vigil/domain/periodicity";
import { hasOwnTraceparent, newTraceContext, type TraceContext } from "@vigil/domain/trace-context";
import { dnsAttempt } from "./dns";
import { grpcAttempt } from "./grpc";
import { httpAttempt } from "./http";
import { tcpAttempt } from "./tcp";
import type { Attempt, CheckEnvironment, CheckOutcome } from "./types";

/** A check to run: a monitor kind with that kind's configuration. */
export type CheckJob = { [K in MonitorKind]: { kind: K; config: MonitorConfigByKind[K] } }[MonitorKind];

export interface RunOptions {
  /** Wait before retry number n (1 for the first retry), in ms; the domain's retryBackoffMs when absent. */
  backoffMs?: (retryNumber: number) => number;
}

function attempt(job: CheckJob, env: CheckEnvironment, trace: TraceContext | null): Promise<Attempt> {
  switch (job.kind) {
    case "http":
      return httpAttempt(job.config, env, trace);
    case "tcp":
      return tcpAttempt(job.config, env);
    case "dns":
      return dnsAttempt(job.config, env);
    case "grpc":
      return grpcAttempt(job.config, env);
  }
}

/**
 * Runs a check: one attempt, then up to `retry` more after failures, while
 * they fit in the period. The last attempt decides: a failure is "error", a
 * success slower than degradedAt is "degraded", else "success".
 * Target failures never reject; an abort through env.signal does (with the
 * signal's reason), because a check cut short says nothing about the target.
 */
export async function runCheck(job: CheckJob, env: CheckEnvironment, options: RunOptions = {}): Promise<CheckOutcome> {
  const backoffMs = options.backoffMs ?? retryBackoffMs;
  const { config } = job;
  const timeoutMs = effectiveTimeoutMs(config.timeout);
  const periodMs = PERIODICITY_MS[config.periodicity];
  const startedAt = new Date();
  const started = performance.now();
  // One trace per check, not per attempt: a retry is the same check asking again, and the result (and its
  // span) is the check's. A traceparent of the monitor's own is sent instead, and identifies no one check.
  const trace = job.kind === "http" && job.config.traceHeader && !hasOwnTraceparent(job.config.headers) ? newTraceContext() : null;

  let last = await attempt(job, env, trace);
  let attempts = 1;
  while (!last.ok && attempts <= config.retry) {
    env.signal?.throwIfAborted();
    const wait = backoffMs(attempts);
    if (!mayRetry(performance.now() - started, wait, timeoutMs, periodMs)) break;
    await sleep(wait, env.signal);
    last = await attempt(job, env, trace);
    attempts += 1;
  }
  // An attempt may report an abort as a failure; it must not become the monitor's verdict.
  env.signal?.throwIfAborted();

  return {
    status: !last.ok ? "error" : last.latencyMs > config.degradedAt ? "degraded" : "success",
    startedAt,
    latencyMs: last.latencyMs,
    timing: last.timing,
    statusCode: last.statusCode,
    error: last.error,
    reason: last.reason,
    attempts,
    trace,
    durationMs: performance.now() - started,
    certificate: last.certificate ?? null,
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
