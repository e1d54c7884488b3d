import type { PrismaClient } from "@vigil/db";
import { createLogger } from "@vigil/logging";
import { Periodicity, Region } from "@vigil/proto";
import { connectRedis, RESULTS_GROUP, resultsStreamKey, type RedisConnection } from "@vigil/queue";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { loadConfig } from "../src/config";
import { GATHER_MS, ResultsConsumer } from "../src/results/consumer";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { eventually } from "../../../test/eventually";
import { RedisProcess } from "../../../test/redis-process";
import { checkResult, publishResults } from "./support/results";

const secondsAgo = (s: number) => new Date(Date.now() - s * 1_000).toISOString();

describe.each(BACKENDS)("a consumer gathering a trickle of results on %s", (backend) => {
  let api: TestApi;
  const prefix = testPrefix();
  const redis = connectRedis(redisServerUrl(), "test-gathering");

  beforeAll(async () => (api = await startTestApi(backend)));
  afterAll(async () => {
    await api.close();
    await deletePrefix(prefix);
    redis.disconnect();
  });

  /** A consumer that counts its transactions. */
  function consumerOf(name: string, gatherMs: number) {
    const counted = { transactions: 0 };
    const prisma = new Proxy(api.db.prisma, {
      get(target, property, receiver) {
        if (property === "$transaction") counted.transactions++;
        return Reflect.get(target, property, receiver);
      },
    }) as PrismaClient;
    const consumer = new ResultsConsumer(redis.duplicate(), prisma, createLogger("silent", "test"), {
      prefix,
      consumer: name,
      rules: STATUS_RULES,
      gatherMs,
      onEvents: async () => {},
    });
    return { consumer, counted };
  }

  async function monitorId(): Promise<string> {
    const client = api.client((await api.workspace()).write.key);
    const { monitor } = await client.createHTTPMonitor({
      monitor: { name: "trickle", url: "https://api.example.com/", periodicity: Periodicity.PERIODICITY_30S, regions: [Region.HOSTA_AMS] },
    });
    return monitor!.id;
  }

  /** Once the consumer has read what the stream holds: it is gathering. */
  const pending = async (count: number) =>
    eventually(async () => expect(((await redis.xpending(resultsStreamKey(prefix), RESULTS_GROUP)) as [number])[0]).toBe(count));

  it("stores results that arrive within the window in one transaction", async () => {
    const id = await monitorId();
    const { consumer, counted } = consumerOf("gathering", 3_000);
    consumer.start();
    try {
      await publishResults(prefix, [checkResult(id, "hostA-ams", secondsAgo(5))]);
      await pending(1);
      await publishResults(prefix, [4, 3, 2, 1].map((s) => checkResult(id, "hostA-ams", secondsAgo(s))));
      await eventually(async () => expect(await api.db.prisma.checkResult.count({ where: { monitorId: id } })).toBe(5), 15_000);
    } finally {
      await consumer.stop();
    }
    expect(counted.transactions).toBe(1);
  });

  it("stores the results in hand at once when it stops while gathering", async () => {
    const id = await monitorId();
    const { consumer } = consumerOf("stopping", 600_000);
    consumer.start();
    await publishResults(prefix, [checkResult(id, "hostA-ams", secondsAgo(1))]);
    await pending(1);
    await consumer.stop();
    expect(await api.db.prisma.checkResult.count({ where: { monitorId: id } })).toBe(1);
    await pending(0);
  });
});

describe("a consumer stopping while it waits for results", () => {
  const prefix = testPrefix();
  const redis = connectRedis(redisServerUrl(), "test-unblock");
  afterAll(async () => {
    await deletePrefix(prefix);
    redis.disconnect();
  });

  /**
   * A consumer on a duplicate of `main`, started and waiting in a read that would wait ten minutes for an entry:
   * only CLIENT UNBLOCK over `main` lets stop() return within the test's time.
   */
  async function waitingConsumer(main: RedisConnection, name: string): Promise<ResultsConsumer> {
    const consumer = new ResultsConsumer(main.duplicate(), {} as PrismaClient, createLogger("silent", "test"), {
      prefix,
      consumer: "waiting",
      rules: STATUS_RULES,
      onEvents: async () => {},
      blockMs: 600_000,
      unblockWith: main,
    });
    consumer.start();
    // Its connection (named as the one it was duplicated from) waits in XREADGROUP.
    await eventually(async () => expect(await main.client("LIST")).toMatch(new RegExp(` name=${name} .*cmd=xreadgroup`)));
    return consumer;
  }

  it("ends its blocking read through the other connection instead of waiting it out", async () => {
    const consumer = await waitingConsumer(redis, "test-unblock");
    await consumer.stop();
    expect(await redis.client("LIST")).not.toMatch(/ name=test-unblock .*cmd=xreadgroup/);
  });

  it("stops when its Redis went away the moment before, though neither connection has seen it yet", async () => {
    const server = await RedisProcess.start();
    const main = connectRedis(server.url, "test-unblock-gone");
    try {
      const consumer = await waitingConsumer(main, "test-unblock-gone");
      // In one turn: both connections still say "ready", so stop() sends CLIENT UNBLOCK into a closing socket,
      // which ioredis then keeps until Redis is back. stop() must not wait for it.
      const gone = server.stop();
      const stopped = consumer.stop().then(() => "stopped");
      const bound = new Promise((resolve) => setTimeout(resolve, 20_000, "still waiting"));
      expect(await Promise.race([stopped, bound])).toBe("stopped");
      await gone;
    } finally {
      main.disconnect();
      await server.dispose();
    }
  });
});

describe("INGEST_GATHER_MS", () => {
  it("defaults to the consumer's window and takes 0 to 5000 ms", () => {
    expect(loadConfig({}).ingestGatherMs).toBe(GATHER_MS);
    expect(loadConfig({ INGEST_GATHER_MS: "0" }).ingestGatherMs).toBe(0);
    expect(loadConfig({ INGEST_GATHER_MS: "250" }).ingestGatherMs).toBe(250);
  });

  it.each(["-1", "5001", "2.5", "ten"])("refuses %s, naming the variable", (value) => {
    expect(() => loadConfig({ INGEST_GATHER_MS: value })).toThrow(/INGEST_GATHER_MS/);
  });
});
