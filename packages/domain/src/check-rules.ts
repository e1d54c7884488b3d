/** How a check reads a target and retries it: product rules the agent's checks apply (docs/checks.md). */
export const CHECK_RULES = {
  /** Redirects an HTTP check follows at most; one more fails the attempt. */
  maxRedirects: 10,
  /** Bytes of the (decoded) response body read for the assertions; the rest is never read. */
  maxBodyBytes: 1024 * 1024,
} as const;

/** 250 ms before the first retry (n = 1), doubling, at most 2 s: a blip gets time to pass without delaying the verdict much. */
export function retryBackoffMs(retryNumber: number): number {
  return Math.min(250 * 2 ** Math.max(0, retryNumber - 1), 2_000);
}

/**
 * Whether another attempt still fits in the monitor's period: its wait plus
 * its whole timeout must end within the period, so a check never overlaps
 * the next scheduled one.
 */
export function mayRetry(elapsedMs: number, backoffMs: number, timeoutMs: number, periodMs: number): boolean {
  return elapsedMs + backoffMs + timeoutMs <= periodMs;
}
