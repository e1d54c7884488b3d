import pRetry from "p-retry";
import { toVigilError, VigilError } from "./errors.js";
import { API_KEY_ENV, API_KEY_HEADER, SESSION_COOKIE, type CallOptions, type ResolvedOptions } from "./options.js";

/** The headers that carry a call's credentials. */
export type Credentials = Record<string, string>;

/** One try of a call: it gets the credentials to send and a signal that ends it at the deadline or on abort. */
export type Attempt<T> = (credentials: Credentials, signal: AbortSignal) => Promise<T>;

/** The API key in its header, else the session in its cookie (a key wins, as on the server). */
export function credentialsOf({ apiKey, session }: ResolvedOptions): Credentials {
  if (apiKey) return { [API_KEY_HEADER]: apiKey };
  if (session) return { cookie: `${SESSION_COOKIE}=${session}` };
  throw new VigilError("unauthenticated", `no API key: set the ${API_KEY_ENV} environment variable, or pass the apiKey option (or a session) to createClient`);
}

/**
 * Runs a call under the client's rules: a key or a session must be there, the whole call
 * (retries included) ends at its deadline or when the caller aborts, and only
 * calls safe to repeat (`idempotent`) are tried again after `unavailable`.
 */
export async function runCall<T>(
  config: ResolvedOptions,
  idempotent: boolean,
  options: CallOptions,
  attempt: Attempt<T>,
  credentials: Credentials = credentialsOf(config),
): Promise<T> {
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
    return await pRetry(() => attempt(credentials, signal), {
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
