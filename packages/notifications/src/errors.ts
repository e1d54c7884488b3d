/**
 * A failed delivery attempt. `retryable` failures (network errors, timeouts,
 * 408, 429, 5xx, SMTP 4xx) are tried again later, honouring `retryAfterMs`
 * when the provider said when; the others (other 4xx: a bad key, an unknown
 * webhook) fail the delivery at once. The message carries the provider's
 * status and answer, for ListNotificationDeliveries and SendTestNotification.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly statusCode: number | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "DeliveryError";
  }
}

/** Statuses worth another try: the provider may answer differently later. */
export const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * Retry-After as delay-seconds or an HTTP date (RFC 9110), in ms from `now`;
 * null when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
