import { once } from "node:events";
import { connect } from "node:net";
import { Redis } from "ioredis";
import { SHARED_COUNT_INTERVAL_MS, SharedRateLimiter } from "../src/limits/shared-rate-limiter";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { eventually } from "../../../test/eventually";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The scripts Redis is asked to run on keys under `prefix`, as MONITOR lines (the commands a script runs are left
 * out). MONITOR is spoken on a plain socket: ioredis's monitor mode can take a monitor line for the reply to a
 * command of its own when Redis is busy ("Command queue state error").
 */
async function watchScripts(prefix: string) {
  const { hostname, port } = new URL(redisServerUrl());
  const socket = connect(Number(port || 6379), hostname);
  await once(socket, "connect");
  const seen: string[] = [];
  let pending = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\r\n");
    pending = lines.pop()!;
    // A line is `+<time> [<db> <client>] "eval" "<script>" "<keys>" "<key>" ...`.
    for (const line of lines) if (/^\+\d+\.\d+ \[\d+ [^\]]+\] "eval(sha)?"/i.test(line) && line.includes(`"${prefix}`)) seen.push(line);
  });
  socket.write("MONITOR\r\n");
  // Redis answers +OK before it streams the commands of others.
  await new Promise<void>((resolve) => socket.once("data", () => resolve()));
  return { seen, close: () => socket.destroy() };
}

describe("the rate limits' shared count in Redis", () => {
  const prefix = testPrefix();
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(redisServerUrl());
    // A limiter drops what it would add while its client is not ready yet (rejectIfRedisNotReady): start ready.
    await redis.ping();
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
      const perKey = (key: string) => scripts.seen.filter((line) => line.includes(`"${keyPrefix}:${key}"`));
      expect(perKey("busy")).toHaveLength(1);
      expect(perKey("other")).toHaveLength(1);
      expect(perKey("busy")[0]).toContain('"40"');
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
