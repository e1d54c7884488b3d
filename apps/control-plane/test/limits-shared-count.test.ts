import { Redis } from "ioredis";
import { SHARED_COUNT_INTERVAL_MS, SharedRateLimiter } from "../src/limits/shared-rate-limiter";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { eventually } from "../../../test/eventually";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The scripts Redis is asked to run on keys under `prefix` (MONITOR, on a connection of its own; the commands a script runs are left out). */
async function watchScripts(prefix: string) {
  // monitor() opens a connection of its own in monitor mode; the one it is called on never connects.
  const monitor = await new Redis(redisServerUrl(), { lazyConnect: true }).monitor();
  const seen: string[][] = [];
  monitor.on("monitor", (_time: string, args: string[]) => {
    if (/^eval/i.test(args[0] ?? "") && args.some((arg) => arg.startsWith(prefix))) seen.push(args);
  });
  return { seen, close: () => monitor.disconnect() };
}

describe("the rate limits' shared count in Redis", () => {
  const prefix = testPrefix();
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(redisServerUrl());
  });
  afterAll(async () => {
    redis.disconnect();
    await deletePrefix(prefix);
  });

  it("adds the calls a control plane accepted in a moment to the shared count in one command per key", async () => {
    const keyPrefix = `${prefix}:moment`;
    const limiter = new SharedRateLimiter(redis, keyPrefix, { points: 1_000, seconds: 60 });
    const scripts = await watchScripts(keyPrefix);
    try {
      const waits = await Promise.all(Array.from({ length: 50 }, (_, i) => limiter.consume(i % 5 === 0 ? "other" : "busy")));
      expect(waits.every((wait) => wait === 0)).toBe(true);
      await eventually(async () => (await redis.get(`${keyPrefix}:busy`)) === "40" && (await redis.get(`${keyPrefix}:other`)) === "10");
      // Nothing more follows.
      await sleep(5 * SHARED_COUNT_INTERVAL_MS);
      const perKey = (key: string) => scripts.seen.filter((args) => args.includes(`${keyPrefix}:${key}`));
      expect(perKey("busy")).toHaveLength(1);
      expect(perKey("other")).toHaveLength(1);
      expect(perKey("busy")[0]).toContain("40");
    } finally {
      scripts.close();
    }
  });

  it("blocks a key on another control plane once the shared count is over, until the window ends", async () => {
    const keyPrefix = `${prefix}:over`;
    const rate = { points: 10, seconds: 60 };
    const first = new SharedRateLimiter(redis, keyPrefix, rate);
    const second = new SharedRateLimiter(redis, keyPrefix, rate);
    for (let i = 0; i < rate.points; i++) expect(await first.consume("client")).toBe(0);
    await eventually(async () => (await redis.get(`${keyPrefix}:client`)) === String(rate.points));
    // The second has counted nothing itself: it accepts the call, and hears from Redis that the key is over.
    expect(await second.consume("client")).toBe(0);
    await eventually(async () => (await second.consume("client")) > 0);
    const wait = await second.consume("client");
    expect(wait).toBeGreaterThan(1);
    expect(wait).toBeLessThanOrEqual(rate.seconds);
  });

  it("keeps the limit in memory while Redis cannot be reached", async () => {
    const unreachable = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: null, retryStrategy: () => null });
    unreachable.on("error", () => {});
    try {
      const limiter = new SharedRateLimiter(unreachable, `${prefix}:away`, { points: 3, seconds: 60 });
      for (let i = 0; i < 3; i++) expect(await limiter.consume("client")).toBe(0);
      expect(await limiter.consume("client")).toBeGreaterThan(0);
      // The shared count's failed sends change nothing here.
      await sleep(3 * SHARED_COUNT_INTERVAL_MS);
      expect(await limiter.consume("client")).toBeGreaterThan(0);
    } finally {
      unreachable.disconnect();
    }
  });
});
