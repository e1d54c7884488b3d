import type { Logger } from "@vigil/logging";

export interface ReconcileLoopOptions {
  intervalMs: number;
  /** Wait before trying again after a failure (Redis or the database out of reach). */
  retryMs: number;
}

/**
 * Runs the reconciliation at start, then at its interval, sooner again after
 * a failure, and at once when asked (runNow). Never two at a time: a request
 * during a run makes one more run right after it.
 */
export class ReconcileLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly reconcile: () => Promise<void>,
    private readonly options: ReconcileLoopOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.runNow();
  }

  runNow(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.run();
  }

  /** Stops planning runs; one in progress is not waited for (with Redis gone it would wait for Redis). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async run(): Promise<void> {
    let next = this.options.intervalMs;
    try {
      await this.reconcile();
    } catch (error) {
      this.logger.error({ err: error }, "reconciling schedules failed; retrying");
      next = Math.min(this.options.retryMs, this.options.intervalMs);
    }
    this.running = undefined;
    if (this.stopped) return;
    if (this.again) {
      this.again = false;
      this.runNow();
    } else {
      this.timer = setTimeout(() => this.runNow(), next);
    }
  }
}
