/**
 * What one client may ask of a control plane, and how long a connection may
 * take: defaults of the settings in docs/limits.md, chosen so that a busy
 * legitimate client never meets them and a flood or a stalled client does.
 */
export const REQUEST_LIMITS = {
  /** API calls (RPC and /v1) per API key, per second. */
  apiCallsPerKeyPerSecond: 100,
  /** API calls per client address (whatever the key, or none), per second. */
  apiCallsPerAddressPerSecond: 300,
  /** Views of one status page (and its companions) per client address, per minute: far above sign-in attempts. */
  pageViewsPerAddressPerMinute: 600,
  /** Streams at a time on one HTTP/2 connection. */
  maxConcurrentStreams: 100,
} as const;

/** How much a connection may hold and for how long. */
export interface ConnectionLimits {
  /** Open connections to the port at a time; more are closed at once. */
  maxConnections: number;
  /** Request line and headers together (HTTP/1.1), the header list (HTTP/2); more is answered 431. */
  maxHeaderBytes: number;
  /** Until a request's headers (or a new connection's first byte) have all arrived: slow clients sending them byte by byte are cut off. */
  headersTimeoutMs: number;
  /** Until a whole request (headers and body) has arrived. */
  requestTimeoutMs: number;
  /** A connection without a request in flight (HTTP/1.1) or without any frame (HTTP/2) is closed after this. */
  idleTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 10_000,
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  // Longer than the 60 s load balancers in front usually keep idle connections, so they close first.
  idleTimeoutMs: 65_000,
};

/** How often Node checks the headers and request timeouts: often enough that a timeout is kept within a second. */
const TIMEOUT_CHECK_MS = 1_000;

/** The options of Node's HTTP/1.1 server (http.createServer) that keep these limits. */
export function http1ServerOptions(limits: ConnectionLimits) {
  return {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, limits.headersTimeoutMs),
  };
}

/** The agents' health and metrics port: a few probes and a scraper, asking for nothing large. */
export const HEALTH_SERVER_LIMITS: ConnectionLimits = {
  maxConnections: 64,
  maxHeaderBytes: 8 * 1024,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  idleTimeoutMs: DEFAULT_CONNECTION_LIMITS.idleTimeoutMs,
};
