import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { RedisConnection } from "@vigil/queue";

/** The deployment's Redis and the prefix of its keys: where every control plane keeps the counts they share. */
export interface SharedRedis {
  connection: RedisConnection;
  prefix: string;
}

/** A number of requests a key may make in a window of seconds. */
export interface Rate {
  points: number;
  seconds: number;
}

/**
 * How long a control plane gathers the calls it accepted before it adds them
 * to the shared counts, one command per key. Sent one by one, the counts cost
 * Redis a command per limit for every call (two per API call), which on a busy
 * API took Redis 21-32 % of a core and woke it a thousand times a second at
 * 500 calls a second; gathered, a moment's calls of a key are one command.
 */
export const SHARED_COUNT_INTERVAL_MS = 10;

/**
 * Counts requests per key against a limit that every control plane of a
 * deployment shares, without making a request wait for Redis: each request
 * is decided on this process's own count in memory, and the shared count in
 * Redis is added to in the background, every SHARED_COUNT_INTERVAL_MS. When
 * the shared count says a key is over, the key is blocked here until the
 * window ends. A key can therefore go over the limit only by what the other
 * control planes let through during one interval and one Redis round trip;
 * while Redis is unreachable each control plane keeps the limit on its own.
 */
export class SharedRateLimiter {
  private readonly local: RateLimiterMemory;
  private readonly shared: RateLimiterRedis;
  /** Calls accepted here since the last time the shared counts were added to, by key. */
  private unsent = new Map<string, number>();
  private sending: NodeJS.Timeout | undefined;

  constructor(redis: RedisConnection, keyPrefix: string, rate: Rate) {
    const limits = { points: rate.points, duration: rate.seconds };
    this.local = new RateLimiterMemory(limits);
    // While Redis is away, calls must not pile up in the client's offline queue.
    this.shared = new RateLimiterRedis({ ...limits, storeClient: redis, keyPrefix, rejectIfRedisNotReady: true });
  }

  /** Counts a request of `key`: 0 when it is within the limit, else the seconds until the key may ask again. */
  async consume(key: string): Promise<number> {
    try {
      await this.local.consume(key);
    } catch (rejected) {
      return retryAfterSeconds(rejected);
    }
    this.unsent.set(key, (this.unsent.get(key) ?? 0) + 1);
    this.sending ??= setTimeout(() => this.send(), SHARED_COUNT_INTERVAL_MS).unref();
    return 0;
  }

  private send(): void {
    const unsent = this.unsent;
    this.unsent = new Map();
    this.sending = undefined;
    for (const [key, calls] of unsent) {
      this.shared.consume(key, calls).catch((rejected: unknown) => {
        // Redis errors are not the client's fault: the count in memory stands in for the shared one.
        if (rejected instanceof RateLimiterRes) void this.local.block(key, retryAfterSeconds(rejected));
      });
    }
  }
}

/** The whole seconds (at least 1) a limiter's refusal says to wait; anything but a refusal (a store's error) is thrown on. */
export function retryAfterSeconds(rejected: unknown): number {
  if (!(rejected instanceof RateLimiterRes)) throw rejected;
  return Math.max(1, Math.ceil(rejected.msBeforeNext / 1000));
}
