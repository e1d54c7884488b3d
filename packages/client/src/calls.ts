import { setTimeout as sleep } from "node:timers/promises";
import { toVigilError, VigilError } from "./errors.js";
import { API_KEY_ENV, type CallOptions, type ResolvedOptions, type RetryPolicy } from "./options.js";

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
  const attempts = idempotent ? Math.max(1, config.retry.maxAttempts) : 1;
  for (let number = 1; ; number++) {
    const early = stopped();
    if (early) throw early;
    try {
      return await attempt(apiKey, signal);
    } catch (error) {
      const failure = stopped() ?? toVigilError(error);
      if (failure.code !== "unavailable" || number >= attempts) throw failure;
      await sleep(backoffMs(config.retry, number), undefined, { signal }).catch(() => undefined);
    }
  }
}

/** Exponential backoff with jitter: half the step is fixed, half random, so clients that failed together spread out. */
function backoffMs(policy: RetryPolicy, failedAttempts: number): number {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (failedAttempts - 1));
  return step / 2 + Math.random() * (step / 2);
}
