import type { Changes } from "../changes/changes";

export interface WakeSettings {
  /** Least time between two wakes of a workspace's watches: changes told meanwhile wake them once, at its end. */
  gapMs: number;
  /**
   * How often a watched workspace is looked at without any change told: its overview also changes without a
   * write (the minute turns: regions turn stale, hours roll over), and a change told while Redis was away is lost.
   */
  checkMs: number;
}

export const DEFAULT_WAKES: WakeSettings = { gapMs: 250, checkMs: 5_000 };

interface Watched {
  wakers: Set<() => void>;
  /** Counts the wakes: the watches woken by the same wake share what they compute (SharedAnswers' key). */
  wakes: number;
  last: number;
  pending: NodeJS.Timeout | undefined;
  check: NodeJS.Timeout;
}

/**
 * Wakes the watches of workspaces' overviews (WatchMonitorOverviews) when an overview may have changed: when
 * `changes` tells of the workspace (results stored, monitors written, by any control plane), and every
 * `checkMs` in any case. All the watches of a workspace wake together and compute what changed once between
 * them. A workspace nobody watches costs nothing.
 */
export class OverviewWakes {
  private readonly watched = new Map<string, Watched>();
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(changes: Changes, private readonly settings: WakeSettings = DEFAULT_WAKES) {
    this.unsubscribe = changes.subscribe((workspaceId) => this.told(workspaceId));
  }

  /**
   * Yields the wake's number at once, then at each wake, until `signal` aborts or close() is called. Wakes that
   * come while the caller is busy with the last one count as one.
   */
  async *watch(workspaceId: string, signal: AbortSignal): AsyncGenerator<number> {
    const entry = this.entryOf(workspaceId);
    const ended = () => signal.aborted || this.closed;
    let woken = true;
    let resume: (() => void) | undefined;
    const wake = () => {
      woken = true;
      resume?.();
    };
    entry.wakers.add(wake);
    signal.addEventListener("abort", wake);
    try {
      for (;;) {
        if (!woken) await new Promise<void>((resolve) => (resume = resolve));
        if (ended()) return;
        woken = false;
        yield entry.wakes;
      }
    } finally {
      signal.removeEventListener("abort", wake);
      entry.wakers.delete(wake);
      if (entry.wakers.size === 0) this.forget(workspaceId, entry);
    }
  }

  /** The workspaces watched here now. */
  get watchedCount(): number {
    return this.watched.size;
  }

  /** Ends every watch (their streams end normally) and stops listening. */
  close(): void {
    this.closed = true;
    this.unsubscribe();
    for (const entry of this.watched.values()) for (const wake of entry.wakers) wake();
  }

  private entryOf(workspaceId: string): Watched {
    let entry = this.watched.get(workspaceId);
    if (!entry) {
      entry = { wakers: new Set(), wakes: 0, last: 0, pending: undefined, check: setInterval(() => this.told(workspaceId), this.settings.checkMs).unref() };
      this.watched.set(workspaceId, entry);
    }
    return entry;
  }

  private forget(workspaceId: string, entry: Watched): void {
    clearInterval(entry.check);
    clearTimeout(entry.pending);
    this.watched.delete(workspaceId);
  }

  private told(workspaceId: string): void {
    const entry = this.watched.get(workspaceId);
    if (!entry || entry.pending) return;
    entry.pending = setTimeout(() => {
      entry.pending = undefined;
      entry.last = Date.now();
      entry.wakes++;
      for (const wake of entry.wakers) wake();
    }, Math.max(0, entry.last + this.settings.gapMs - Date.now())).unref();
  }
}
