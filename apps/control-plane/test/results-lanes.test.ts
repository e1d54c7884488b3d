import type { PrismaClient } from "@vigil/db";
import { createLogger } from "@vigil/logging";
import { Periodicity, Region } from "@vigil/proto";
import { connectRedis, type ResultMessage } from "@vigil/queue";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { ResultsConsumer } from "../src/results/consumer";
import { MIN_RESULTS_PER_LANE, lanesFor, splitIntoLanes } from "../src/results/lanes";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { eventually } from "../../../test/eventually";
import { checkResult, publishResults } from "./support/results";

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

describe("splitting a batch into lanes", () => {
  const results = Array.from({ length: 300 }, (_, i) => checkResult(`monitor-${i % 37}`, "hostA-ams", minutesAgo(300 - i)));

  it.each([2, 3, 8])("keeps every result, each monitor's in one lane and in order (%i lanes)", (count) => {
    const lanes = splitIntoLanes(results, count);
    expect(lanes.length).toBeGreaterThan(1);
    expect(lanes.length).toBeLessThanOrEqual(count);
    expect(lanes.flat().sort((a, b) => a.id.localeCompare(b.id))).toEqual([...results].sort((a, b) => a.id.localeCompare(b.id)));
    const laneOf = new Map<string, number>();
    lanes.forEach((lane, i) =>
      lane.forEach((r) => {
        expect(laneOf.get(r.monitorId) ?? i).toBe(i);
        laneOf.set(r.monitorId, i);
      }),
    );
    for (const lane of lanes) expect(lane).toEqual(results.filter((r) => lane.includes(r)));
  });

  it("puts a monitor in the same lane in every batch", () => {
    const again = splitIntoLanes([...results].reverse(), 3);
    const first = splitIntoLanes(results, 3);
    const laneOf = (lanes: ResultMessage[][], monitorId: string) => lanes.findIndex((lane) => lane.some((r) => r.monitorId === monitorId));
    for (let i = 0; i < 37; i++) expect(laneOf(again, `monitor-${i}`)).toBe(laneOf(first, `monitor-${i}`));
  });

  it("leaves a batch whole for one lane", () => {
    expect(splitIntoLanes(results, 1)).toEqual([results]);
  });

  it("opens a lane only for MIN_RESULTS_PER_LANE results or more: a trickle's batch is one transaction", () => {
    expect(lanesFor(17, 2)).toBe(1);
    expect(lanesFor(2 * MIN_RESULTS_PER_LANE - 1, 2)).toBe(1);
    expect(lanesFor(2 * MIN_RESULTS_PER_LANE, 2)).toBe(2);
    expect(lanesFor(2_000, 2)).toBe(2);
    expect(lanesFor(5 * MIN_RESULTS_PER_LANE, 8)).toBe(5);
    expect(lanesFor(0, 2)).toBe(1);
    expect(lanesFor(2_000, 1)).toBe(1);
  });
});

describe.each(BACKENDS)("a consumer storing in lanes on %s", (backend) => {
  let api: TestApi;
  const prefix = testPrefix();
  const redis = connectRedis(redisServerUrl(), "test-lanes");

  beforeAll(async () => {
    api = await startTestApi(backend);
  });
  afterAll(async () => {
    await api.close();
    await deletePrefix(prefix);
    redis.disconnect();
  });

  it("stores every result once and tells every event once when one lane fails and the batch is read again", async () => {
    const keys = await api.workspace();
    const client = api.client(keys.write.key);
    const workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
    const channel = await api.db.prisma.notificationChannel.create({ data: { workspaceId, providerType: "webhook" } });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { monitor } = await client.createHTTPMonitor({
        monitor: { name: `m${i}`, url: "https://api.example.com/", periodicity: Periodicity.PERIODICITY_1M, regions: [Region.HOSTA_AMS] },
      });
      ids.push(monitor!.id);
      await api.db.prisma.notificationMonitor.create({ data: { notificationId: channel.id, monitorId: monitor!.id } });
    }
    // Every monitor healthy, then failing: one monitor.failed event each. Enough results for two lanes.
    const healthy = Math.ceil((2 * MIN_RESULTS_PER_LANE) / ids.length);
    const results = ids.flatMap((id) => [
      ...Array.from({ length: healthy }, (_, i) => checkResult(id, "hostA-ams", minutesAgo(2 + healthy - i))),
      checkResult(id, "hostA-ams", minutesAgo(1), "error"),
    ]);
    const [failing] = splitIntoLanes(results, 2).map((lane) => lane[0]!.monitorId);

    // The lane holding `failing` fails once, after the other lane may have committed.
    let failures = 0;
    const failOnce = new Proxy(api.db.prisma, {
      get(target, property, receiver) {
        if (property !== "$transaction") return Reflect.get(target, property, receiver);
        return (work: (tx: unknown) => Promise<unknown>) =>
          target.$transaction(async (tx) => {
            const done = await work(tx);
            // Results this very transaction stored: only the failing monitor's lane has any.
            const [mine] = await tx.$queryRaw<{ n: number }[]>`
              SELECT count(*)::int AS n FROM check_results WHERE monitor_id = ${failing} AND xmin::text = pg_current_xact_id()::text`;
            if (mine!.n > 0 && failures++ === 0) throw new Error("the database went away mid-batch");
            return done;
          });
      },
    }) as PrismaClient;

    const told: string[] = [];
    // The consumer's blocking reads get a connection of their own, as startPipeline gives them.
    const consumer = new ResultsConsumer(redis.duplicate(), failOnce, createLogger("silent", "test"), {
      prefix,
      consumer: "lanes-test",
      rules: STATUS_RULES,
      lanes: 2,
      maxRetryDelayMs: 100,
      onEvents: async (eventIds) => void told.push(...eventIds),
    });
    await publishResults(prefix, results);
    consumer.start();
    try {
      await eventually(async () => expect(await redis.xlen(`${prefix}:results`)).toBe(0), 15_000);
    } finally {
      await consumer.stop();
    }

    expect(failures).toBe(2); // failed once, and seen committed on the retry
    expect(await api.db.prisma.checkResult.count({ where: { monitorId: { in: ids } } })).toBe(results.length);
    const events = await api.db.prisma.alertEvent.findMany({ where: { monitorId: { in: ids } } });
    expect(events.map((e) => e.type)).toEqual(ids.map(() => "monitor.failed"));
    expect([...told].sort()).toEqual(events.map((e) => e.id).sort());
  });
});
