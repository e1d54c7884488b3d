/**
 * When failed deliveries are tried again: the first retry within 10 s, the
 * second within a minute of it, then growing to about an hour in all
 * (5 s, 30 s, 2 min, 5 min, 10 min, 15 min, 30 min: 62 minutes, 8 attempts).
 * NOTIFICATION_RETRY_DELAYS (seconds, comma-separated) replaces it.
 */
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 300_000, 600_000, 900_000, 1_800_000] as const;

/** The longest wait a provider's Retry-After may impose; longer ones are cut to it. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/** Parses NOTIFICATION_RETRY_DELAYS; null when it is not a list of non-negative numbers. */
export function parseRetryDelays(text: string): number[] | null {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => !/^\d+(\.\d+)?$/.test(part))) return null;
  return parts.map((part) => Math.round(Number(part) * 1000));
}

/**
 * The wait before the next attempt after `attemptsMade` attempts failed: the
 * provider's Retry-After when it gave one (capped), else the schedule's delay
 * with ±20 % jitter, so that channels failing together do not retry in step.
 */
export function retryDelayMs(delays: readonly number[], attemptsMade: number, retryAfterMs: number | null, random = Math.random): number {
  if (retryAfterMs !== null) return Math.min(Math.max(retryAfterMs, 0), MAX_RETRY_AFTER_MS);
  const base = delays[Math.min(attemptsMade, delays.length) - 1] ?? 0;
  return Math.round(base * (0.8 + 0.4 * random()));
}
