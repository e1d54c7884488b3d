import { Redis } from "ioredis";
import { AttemptLimiter } from "../src/limits/attempt-limiter";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";

describe("the attempt limiter", () => {
  const prefix = testPrefix();
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(redisServerUrl());
    await redis.ping();
  });
  afterAll(async () => {
    redis.disconnect();
    await deletePrefix(prefix);
  });

  it("lets exactly its points through when attempts come at once to control planes sharing Redis", async () => {
    const rate = { points: 10, seconds: 60 };
    const planes = [new AttemptLimiter(redis, `${prefix}:burst`, rate), new AttemptLimiter(redis, `${prefix}:burst`, rate)];
    const waits = await Promise.all(Array.from({ length: 40 }, (_, i) => planes[i % 2]!.reserve("client|page")));
    expect(waits.filter((wait) => wait === 0)).toHaveLength(10);
    for (const wait of waits.filter((wait) => wait > 0)) expect(wait).toBeLessThanOrEqual(rate.seconds);
    // Other keys are counted apart.
    expect(await planes[0]!.reserve("client|other page")).toBe(0);
  });

  it("takes back what a successful attempt gives back", async () => {
    const limiter = new AttemptLimiter(redis, `${prefix}:reward`, { points: 2, seconds: 60 });
    for (let success = 0; success < 5; success++) {
      expect(await limiter.reserve("client")).toBe(0);
      await limiter.giveBack("client");
    }
    expect(await limiter.reserve("client")).toBe(0);
    expect(await limiter.reserve("client")).toBe(0);
    expect(await limiter.reserve("client")).toBeGreaterThan(0);
  });

  it("counts in its own memory, at once, while Redis cannot be reached", async () => {
    // As the deployment's connection is made: commands wait for Redis to come back, however long that takes.
    const away = new Redis({ port: 1, maxRetriesPerRequest: null, retryStrategy: () => 50 });
    away.on("error", () => {});
    try {
      const limiter = new AttemptLimiter(away, `${prefix}:away`, { points: 3, seconds: 60 });
      for (let i = 0; i < 3; i++) expect(await limiter.reserve("client")).toBe(0);
      await limiter.giveBack("client");
      expect(await limiter.reserve("client")).toBe(0);
      expect(await limiter.reserve("client")).toBeGreaterThan(0);
    } finally {
      away.disconnect();
    }
  });
});
