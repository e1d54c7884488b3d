export type Protocol = "connect" | "grpc" | "grpc-web";

/** How often and how patiently `unavailable` answers of reads and idempotent calls are tried again. */
export interface RetryPolicy {
  /** Attempts in all, the first included; 1 turns retries off. */
  maxAttempts: number;
  /** Backoff before the second attempt; it doubles for each further one, up to maxDelayMs. */
  initialDelayMs: number;
  maxDelayMs: number;
}

export interface ClientOptions {
  /** API key sent in `x-service-key`. Default: the SERVICE_API_KEY environment variable, unless `session` is given. */
  apiKey?: string;
  /** A person's session token (from `signIn`), sent as the `vigil_session` cookie when there is no API key. */
  session?: string;
  /** The API's address. Default: SERVICE_API_URL, else DEFAULT_BASE_URL. */
  baseUrl?: string;
  /** Wire protocol of the RPC services. Default: "connect" (over HTTP/1.1); "grpc" uses HTTP/2. */
  protocol?: Protocol;
  /** Time limit of each call, retries and their backoff included. Default: DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

/** What one call may add: a way to abort it and its own time limit. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** What a server stream may add: a way to end it (it has no time limit of its own). */
export interface StreamOptions {
  signal?: AbortSignal;
}

/** Where Vigil listens when run on its defaults (PORT=8080). */
export const DEFAULT_BASE_URL = "http://localhost:8080";
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 2_000 };

export const API_KEY_HEADER = "x-service-key";
export const SESSION_COOKIE = "vigil_session";
export const API_KEY_ENV = "SERVICE_API_KEY";
export const BASE_URL_ENV = "SERVICE_API_URL";

export interface ResolvedOptions {
  apiKey: string | undefined;
  session: string | undefined;
  baseUrl: string;
  protocol: Protocol;
  timeoutMs: number;
  retry: RetryPolicy;
}

/** Options win over the environment, read once here so a client behaves the same for its whole life. */
export function resolveOptions(options: ClientOptions, env: NodeJS.ProcessEnv): ResolvedOptions {
  return {
    apiKey: options.apiKey ?? (options.session ? undefined : env[API_KEY_ENV] || undefined),
    session: options.session || undefined,
    baseUrl: (options.baseUrl ?? (env[BASE_URL_ENV] || DEFAULT_BASE_URL)).replace(/\/+$/, ""),
    protocol: options.protocol ?? "connect",
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: { ...DEFAULT_RETRY, ...options.retry },
  };
}
