/**
 * The phases of one attempt, timed back to back (the HTTP and gRPC checks'
 * connect, TLS and response phases are measured the same way), and the words
 * that say where an attempt was when it failed.
 */
import { performance } from "node:perf_hooks";
import { NO_TIMING, type Timing } from "./types";

/** When the first phase of the attempt's first hop began (performance.now()); undefined before. */
export interface AttemptOrigin {
  began: number | undefined;
}

export type Phase = keyof Timing;

/** Where an attempt was when it failed, for its error. */
export const PHASE_WORDS: Record<Phase, string> = {
  dnsMs: "while resolving the host name",
  connectMs: "while connecting",
  tlsMs: "during the TLS handshake",
  firstByteMs: "while waiting for the response",
  transferMs: "while reading the response body",
};

/**
 * Times a request's phases back to back: entering a phase ends the one
 * before. A phase that started and then failed keeps the time spent in it
 * (a TLS handshake that rejected the certificate took that long); phases
 * never reached stay null.
 */
export class PhaseClock {
  readonly timing: Timing = { ...NO_TIMING };
  /** When the request ended (its last byte, or its failure). */
  stoppedAt: number | undefined;
  private current: Phase | null = null;
  private since = 0;

  constructor(private readonly origin: AttemptOrigin) {}

  get phase(): Phase | null {
    return this.current;
  }

  /** Ends the current phase and starts `phase` at `at` (now by default); returns that time. */
  enter(phase: Phase | null, at = performance.now()): number {
    // A connector still running after the attempt ended must not change its result.
    if (this.stoppedAt !== undefined) return this.stoppedAt;
    const now = Math.max(at, this.since);
    this.origin.began ??= now;
    if (this.current !== null) this.timing[this.current] = now - this.since;
    this.current = phase;
    this.since = now;
    return now;
  }

  /** Ends the request at `at` (now by default): its last byte, or its failure. */
  stop(at?: number): void {
    this.enter(null, at);
    this.stoppedAt ??= this.since;
  }
}
