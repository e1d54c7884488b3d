import type { RedisConnection } from "@vigil/queue";
import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import { PAGE_ACCESS } from "@vigil/domain";

const limits = { points: PAGE_ACCESS.signInAttempts, duration: PAGE_ACCESS.signInWindowSeconds };

/**
 * Sign-in attempts per client address and page: wrong passwords and
 * requests for an emailed link. Counted in Redis, so that every control
 * plane of a deployment shares the count; while Redis is unreachable each
 * counts in its own memory instead (docs/status-pages.md).
 */
export class SignInAttempts {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: RedisConnection, prefix: string) {
    this.limiter = new RateLimiterRedis({
      ...limits,
      storeClient: redis,
      keyPrefix: `${prefix}:sign-in-attempts`,
      insuranceLimiter: new RateLimiterMemory(limits),
    });
  }

  /** Seconds until the client may try again on the page; 0 when it may now. */
  async retryAfter(client: string, pageId: string): Promise<number> {
    const state = await this.limiter.get(keyOf(client, pageId));
    if (!state || state.consumedPoints < PAGE_ACCESS.signInAttempts) return 0;
    return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  }

  async record(client: string, pageId: string): Promise<void> {
    await this.limiter.penalty(keyOf(client, pageId), 1);
  }
}

const keyOf = (client: string, pageId: string) => `${client}|${pageId}`;
