import { TargetFailure } from "./errors";

/**
 * The time one attempt has. It ends when that time is up (timedOut is then
 * true, and the reason a TargetFailure) or when the agent aborts the check
 * (with the agent's reason), so everything the attempt waits on is cancelled
 * through one object and the attempt can still tell a slow target from an
 * agent shutting down.
 *
 * Waiters subscribe with onEnd rather than through an AbortSignal: a check
 * runs thousands of times a second, and an AbortController plus EventTarget
 * listeners per attempt cost more than the whole TCP connect they guard.
 * The outer signal is listened to only once something waits.
 */
export class Deadline {
  timedOut = false;
  ended = false;
  /** Why the attempt ended early; undefined while it runs. */
  reason: unknown = undefined;
  private readonly endsAt: number;
  private readonly timer: NodeJS.Timeout;
  private listeners: (() => void)[] = [];
  private listeningToOuter = false;
  private readonly onOuterAbort = () => this.end(this.outer?.reason);

  constructor(
    readonly ms: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    this.endsAt = performance.now() + ms;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.end(new TargetFailure(`timed out after ${ms} ms`, "timeout"));
    }, ms);
    if (outer?.aborted) this.end(outer.reason);
  }

  /** Throws the reason when the attempt has ended. */
  throwIfEnded(): void {
    if (this.ended) throw this.reason;
  }

  /**
   * Calls `listener` once when the attempt ends (at once when it has); the
   * returned function unsubscribes.
   */
  onEnd(listener: () => void): () => void {
    if (this.ended) {
      listener();
      return noop;
    }
    if (!this.listeningToOuter && this.outer !== undefined) {
      this.listeningToOuter = true;
      this.outer.addEventListener("abort", this.onOuterAbort, { once: true });
    }
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  /** Lets work that paces itself (DNS retransmission, one address's share) fit in what is left. */
  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  dispose(): void {
    clearTimeout(this.timer);
    if (this.listeningToOuter) this.outer?.removeEventListener("abort", this.onOuterAbort);
    this.listeners = [];
  }

  private end(reason: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

function noop(): void {}
