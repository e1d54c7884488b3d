import { isIP } from "node:net";
import { AddressPolicy } from "@vigil/domain/address-policy";
import type { FailureReason } from "@vigil/domain/alerting";
import { parseHostPort } from "@vigil/domain/hosts";
import { effectiveTimeoutMs } from "@vigil/domain/limits";
import type { TcpMonitorConfig } from "@vigil/domain/monitor-config";
import { Deadline } from "./deadline";
import { TargetFailure } from "./errors";
import { connectToAny, resolveHost } from "./network";
import { afterReadySockets } from "./ready-sockets";
import type { Attempt, CheckEnvironment } from "./types";
import { NO_TIMING } from "./types";

/**
 * One TCP check attempt: resolve the host (unless it is an IP address),
 * connect within the timeout, which covers both, then close at once.
 * Rejects only when env.signal aborts.
 */
export async function tcpAttempt(config: TcpMonitorConfig, env: CheckEnvironment): Promise<Attempt> {
  env.signal?.throwIfAborted();
  const target = parseHostPort(config.uri);
  // Only a configuration that bypassed the API's validation gets here: there is nothing to connect to.
  if (target === null) return failed(0, null, null, `invalid target ${JSON.stringify(config.uri)}: expected host:port`, "connect");
  const deadline = new Deadline(effectiveTimeoutMs(config.timeout), env.signal);
  const started = performance.now();
  let dnsMs: number | null = null;
  let connectMs: number | null = null;
  try {
    let addresses = [target.host];
    if (isIP(target.host) === 0) {
      try {
        addresses = await resolveHost(target.host, deadline, { servers: env.dnsServers });
      } finally {
        dnsMs = performance.now() - started;
      }
    }
    let connectStarted: number | undefined;
    try {
      // Closed with a reset, so the agent keeps no TIME_WAIT entry per check: with ~28,000 ephemeral
      // ports held 60 s each, a few hundred checks a second of one target would exhaust them.
      const socket = await connectToAny(addresses, target.port, deadline, env.addressPolicy ?? AddressPolicy.STRICT, () => (connectStarted = performance.now()));
      socket.resetAndDestroy();
    } finally {
      if (connectStarted !== undefined) connectMs = performance.now() - connectStarted;
    }
    await afterReadySockets();
    // Connected, so a connection was attempted and connectMs measured.
    return { ok: true, latencyMs: (dnsMs ?? 0) + connectMs!, timing: { ...NO_TIMING, dnsMs, connectMs }, statusCode: null, error: null, reason: null };
  } catch (error) {
    if (!(error instanceof TargetFailure)) throw error;
    return failed((dnsMs ?? 0) + (connectMs ?? 0), dnsMs, connectMs, error.message, error.reason);
  } finally {
    deadline.dispose();
  }
}

function failed(latencyMs: number, dnsMs: number | null, connectMs: number | null, error: string, reason: FailureReason): Attempt {
  return { ok: false, latencyMs, timing: { ...NO_TIMING, dnsMs, connectMs }, statusCode: null, error, reason };
}
