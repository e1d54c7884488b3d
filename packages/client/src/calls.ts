import pRetry from "p-retry";
import { toVigilError, VigilError } from "./errors.js";
import { API_KEY_ENV, type CallOptions, type ResolvedOptions } from "./options.js";

/** One try of a call: it gets the key to send and a signal that ends it at the deadline or on abort. */
export type Attempt<T> = (apiKey: string, signal: AbortSignal) => Promise<T>;

/**
 * Runs a call under the client's rules: the key must be there, the whole call
 * (retries included) ends at its deadline or when the caller aborts, and only
 * calls safe to repeat (`idempotent`) are tried again after `unavailable`.
 */
export async function runCall<T>(config: ResolvedOptions, idempotent: boolean, options: CallOptions, attempt: Attempt<T>): Promise<T> {
  const apiKey = config.apiKey;
  if (!apiKey) {
    throw new VigilError("unauthenticated", `no API key: set the ${API_KEY_ENV} environment variable or pass the apiKey option to createClient`);
  }
  const timeoutMs = options.timeoutMs ?? config.timeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const stopped = () => {
    if (options.signal?.aborted) return new VigilError("canceled", "the call was aborted", [], { cause: options.signal.reason });
    if (deadline.aborted) return new VigilError("deadline_exceeded", `the call did not finish within ${timeoutMs} ms`);
    return undefined;
  };
  const { maxAttempts, initialDelayMs, maxDelayMs } = config.retry;
  try {
    return await pRetry(() => attempt(apiKey, signal), {
      retries: idempotent ? Math.max(1, maxAttempts) - 1 : 0,
      minTimeout: initialDelayMs,
      maxTimeout: maxDelayMs,
      // Each wait is 1 to 2 times its step (at most maxDelayMs), so that clients that failed together come back apart.
      randomize: true,
      signal,
      shouldRetry: ({ error }) => toVigilError(error).code === "unavailable",
    });
  } catch (error) {
    throw stopped() ?? toVigilError(error);
  }
}
