import type { AddressPolicy } from "@vigil/domain/address-policy";
import type { FailureReason } from "@vigil/domain/alerting";
import type { CertificateInfo } from "@vigil/domain/certificates";
import type { TraceContext } from "@vigil/domain/trace-context";

/** Final verdict of a check: the last attempt decides. */
export type CheckStatus = "success" | "degraded" | "error";

/**
 * Phases of one attempt in milliseconds (sub-millisecond precision), null
 * when the phase did not happen (no DNS lookup for an IP address, no TLS for
 * http://, no connect when an earlier phase failed).
 */
export interface Timing {
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  firstByteMs: number | null;
  transferMs: number | null;
}

/** One try at the target. */
export interface Attempt {
  ok: boolean;
  /** Time from the start of the attempt to its end (success or failure). */
  latencyMs: number;
  timing: Timing;
  /** HTTP status, for HTTP checks that got an answer. */
  statusCode: number | null;
  /** Why the attempt failed; null when ok. */
  error: string | null;
  /** The error's kind, named; null when ok. */
  reason: FailureReason | null;
  /** HTTPS checks: the certificate the handshake verified; null or absent when there was none (a failed handshake too). */
  certificate?: CertificateInfo | null;
}

/** The outcome of a check, after retries. */
export interface CheckOutcome {
  status: CheckStatus;
  startedAt: Date;
  latencyMs: number;
  timing: Timing;
  statusCode: number | null;
  error: string | null;
  reason: FailureReason | null;
  /** Attempts made, 1 to retry + 1. */
  attempts: number;
  /** The traceparent ids every request of an HTTP check carried; null when it sent none of its own. */
  trace: TraceContext | null;
  /** From the start of the first attempt to the end of the last, retries and their waits included. */
  durationMs: number;
  /** The last attempt's certificate (HTTPS checks); null when it saw none. */
  certificate: CertificateInfo | null;
}

/** How this agent runs checks; the same for every monitor it checks. */
export interface CheckEnvironment {
  /** DNS servers ("127.0.0.1:5353") for DNS checks and for resolving host names; the system's when absent. */
  dnsServers?: string[];
  /**
   * Which addresses HTTP, TCP and gRPC checks may connect to (ALLOW_PRIVATE_TARGETS,
   * ALLOWED_TARGET_CIDRS); AddressPolicy.STRICT when absent. DNS checks ask
   * the agent's own resolvers, which the operator chose, and are not guarded.
   */
  addressPolicy?: AddressPolicy;
  /**
   * Aborts the check: it then rejects with the signal's reason. The agent passes none, as it never
   * cuts a check short (a second SIGTERM exits the process).
   */
  signal?: AbortSignal;
}

export const NO_TIMING: Timing = { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null, transferMs: null };
