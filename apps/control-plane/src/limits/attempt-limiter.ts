import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import type { RedisConnection } from "@vigil/queue";
import { retryAfterSeconds, type Rate, type SharedRedis } from "./shared-rate-limiter";

/**
 * Attempts at something that can be guessed (a sign-in), per key the caller
 * gives (a client address and what it signs in to), shared by every control
 * plane of a deployment. An attempt is counted before it is tried, in one
 * atomic Redis command, so that attempts sent at once cannot all pass the
 * check before any of them is counted, nor cost a verification each; a
 * successful attempt gives its point back, so that only failures add up.
 * While Redis is unreachable each control plane counts in its own memory.
 */
export class AttemptLimiter {
  private readonly limiter: RateLimiterRedis;

  /** `keyPrefix` names what is attempted (e.g. `vigil:attempts:status-page-sign-in`). */
  constructor(redis: RedisConnection, keyPrefix: string, rate: Rate) {
    const limits = { points: rate.points, duration: rate.seconds };
    this.limiter = new RateLimiterRedis({
      ...limits,
      storeClient: redis,
      keyPrefix,
      // Not the client's offline queue (it holds commands until Redis returns): the count in memory at once.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(limits),
    });
  }

  /** Counts an attempt of `key` before it is tried: 0 when it may go ahead, else the seconds until the key may try again. */
  async reserve(key: string): Promise<number> {
    try {
      await this.limiter.consume(key);
      return 0;
    } catch (rejected) {
      return retryAfterSeconds(rejected);
    }
  }

  /** Gives back the attempt `key` reserved, when it succeeded. */
  async giveBack(key: string): Promise<void> {
    await this.limiter.reward(key);
  }
}

/** The deployment's limiter of attempts at `what` (e.g. `sign-in-account`), under `<prefix>:attempts:<what>` in Redis. */
export const attemptLimiter = (redis: SharedRedis, what: string, rate: Rate) => new AttemptLimiter(redis.connection, `${redis.prefix}:attempts:${what}`, rate);
