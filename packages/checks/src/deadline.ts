import { TargetFailure } from "./errors";

/**
 * The time one attempt has. Its signal aborts when that time is up (timedOut
 * is then true) or when the agent aborts the check (with the agent's reason),
 * so everything the attempt waits on is cancelled through one signal and the
 * attempt can still tell a slow target from an agent shutting down.
 */
export class Deadline {
  timedOut = false;
  private readonly controller = new AbortController();
  private readonly endsAt: number;
  private readonly timer: NodeJS.Timeout;
  private readonly onOuterAbort = () => this.controller.abort(this.outer?.reason);

  constructor(
    readonly ms: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    this.endsAt = performance.now() + ms;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new TargetFailure(`timed out after ${ms} ms`));
    }, ms);
    if (outer?.aborted) this.onOuterAbort();
    else outer?.addEventListener("abort", this.onOuterAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Lets work that paces itself (DNS retransmission, one address's share) fit in what is left. */
  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onOuterAbort);
  }
}
