import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RedisConnection } from "@vigil/queue";

/** A number of requests a key may make in a window of seconds. */
export interface Rate {
  points: number;
  seconds: number;
}

/**
 * Counts requests per key against a limit that every control plane of a
 * deployment shares, without making a request wait for Redis: each request
 * is decided on this process's own count in memory, and the shared count in
 * Redis is added to in the background. When the shared count says a key is
 * over, the key is blocked here until the window ends. A key can therefore
 * go over the limit only by what the other control planes let through during
 * one Redis round trip; while Redis is unreachable each control plane keeps
 * the limit on its own.
 */
export class SharedRateLimiter {
  private readonly local: RateLimiterMemory;
  private readonly shared: RateLimiterRedis;

  constructor(redis: RedisConnection, keyPrefix: string, rate: Rate) {
    const limits = { points: rate.points, duration: rate.seconds };
    this.local = new RateLimiterMemory(limits);
    // While Redis is away, calls must not pile up in the client's offline queue, one per request.
    this.shared = new RateLimiterRedis({ ...limits, storeClient: redis, keyPrefix, rejectIfRedisNotReady: true });
  }

  /** Counts a request of `key`: 0 when it is within the limit, else the seconds until the key may ask again. */
  async consume(key: string): Promise<number> {
    try {
      await this.local.consume(key);
    } catch (rejected) {
      return retryAfterSeconds(rejected);
    }
    this.shared.consume(key).catch((rejected: unknown) => {
      // Redis errors are not the client's fault: the count in memory stands in for the shared one.
      if (rejected instanceof RateLimiterRes) void this.local.block(key, retryAfterSeconds(rejected));
    });
    return 0;
  }
}

function retryAfterSeconds(rejected: unknown): number {
  if (!(rejected instanceof RateLimiterRes)) throw rejected;
  return Math.max(1, Math.ceil(rejected.msBeforeNext / 1000));
}
