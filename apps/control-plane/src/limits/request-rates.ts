import { createHash } from "node:crypto";
import { LIMITS } from "@vigil/domain";
import type { RedisConnection } from "@vigil/queue";
import type { Credential } from "../auth/callers";
import { HttpError, type Request } from "../http/json";
import { SharedRateLimiter } from "./shared-rate-limiter";

/** The rate limits of a deployment (RATE_LIMIT_* settings). */
export interface RateLimitSettings {
  apiCallsPerKeyPerSecond: number;
  apiCallsPerAddressPerSecond: number;
  pageViewsPerAddressPerMinute: number;
}

/** A request over a limit: what to tell the client, and when it may try again. */
export interface Refusal {
  message: string;
  retryAfterSeconds: number;
}

/** The client's address as the connection sees it (behind a proxy, the proxy's). */
export const clientAddress = (req: Request): string => req.socket.remoteAddress ?? "";

/** API keys and ping tokens are secrets: Redis holds a digest of each, never the secret. */
const keyDigest = (apiKey: string) => createHash("sha256").update(apiKey).digest("base64url").slice(0, 22);

/**
 * The request rates every control plane of a deployment counts together:
 * API calls per key and per client address, and status page views per
 * client address and page.
 */
export class RequestRates {
  private readonly perKey: SharedRateLimiter;
  private readonly perAddress: SharedRateLimiter;
  private readonly pageViews: SharedRateLimiter;
  private readonly pingsPerToken: SharedRateLimiter;

  constructor(
    redis: RedisConnection,
    prefix: string,
    private readonly settings: RateLimitSettings,
  ) {
    this.perKey = new SharedRateLimiter(redis, `${prefix}:rate:api-key`, { points: settings.apiCallsPerKeyPerSecond, seconds: 1 });
    this.perAddress = new SharedRateLimiter(redis, `${prefix}:rate:api-address`, { points: settings.apiCallsPerAddressPerSecond, seconds: 1 });
    this.pageViews = new SharedRateLimiter(redis, `${prefix}:rate:page-views`, { points: settings.pageViewsPerAddressPerMinute, seconds: 60 });
    this.pingsPerToken = new SharedRateLimiter(redis, `${prefix}:rate:ping-token`, { points: LIMITS.pingsPerSecondPerToken, seconds: 1 });
  }

  /**
   * Counts a heartbeat ping from `address` to the ping URL of `token`: against the API's limit per address, and
   * LIMITS.pingsPerSecondPerToken per token (a job gone wild, or a leaked URL); null when it is within both.
   */
  async ping(address: string, token: string): Promise<Refusal | null> {
    const byAddress = await this.perAddress.consume(address);
    if (byAddress > 0) return { message: `rate limit: more than ${this.settings.apiCallsPerAddressPerSecond} requests per second from this address`, retryAfterSeconds: byAddress };
    const byToken = await this.pingsPerToken.consume(keyDigest(token));
    if (byToken > 0) return { message: `rate limit: more than ${LIMITS.pingsPerSecondPerToken} pings per second to this ping URL`, retryAfterSeconds: byToken };
    return null;
  }

  /** Counts an API call from `address` with `credential` (its API key or session, if any); null when it is within the limits. */
  async apiCall(address: string, credential: Credential | undefined): Promise<Refusal | null> {
    const byAddress = await this.perAddress.consume(address);
    if (byAddress > 0) return { message: `rate limit: more than ${this.settings.apiCallsPerAddressPerSecond} API calls per second from this address`, retryAfterSeconds: byAddress };
    if (!credential) return null;
    const byKey = await this.perKey.consume(keyDigest(credential.secret));
    if (byKey > 0) return { message: `rate limit: more than ${this.settings.apiCallsPerKeyPerSecond} API calls per second with this ${credential.what}`, retryAfterSeconds: byKey };
    return null;
  }

  /** Counts a view of the page at `page` (a slug or a host) from `address`; null when it is within the limit. */
  async pageView(address: string, page: string): Promise<Refusal | null> {
    const wait = await this.pageViews.consume(`${address}|${page}`);
    if (wait === 0) return null;
    return { message: `rate limit: more than ${this.settings.pageViewsPerAddressPerMinute} views of this page per minute from this address`, retryAfterSeconds: wait };
  }
}

/** A refused request of the plain HTTP endpoints: 429 with Retry-After and the usual JSON error body. */
export const tooManyRequests = (refusal: Refusal) =>
  new HttpError("resource_exhausted", refusal.message, { "retry-after": String(refusal.retryAfterSeconds) });
