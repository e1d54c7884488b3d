import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { Worker } from "bullmq";
import { PERCENTILE_RELATIVE_ERROR, regionCodec, type RegionId } from "@vigil/domain";
import { MonitorService, MonitorStatus, Periodicity, Region, TimeRange, type TimeseriesBucket } from "@vigil/proto";
import { checkQueueName, connectRedis, type ResultMessage } from "@vigil/queue";
import { storeResults } from "../src/results/store";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { checkResult } from "./support/results";
import { redisServerUrl } from "../../../test/redis";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const AMS = Region.HOSTA_AMS;
const FRA = Region.HOSTB_FRA;
const region = (r: Region) => regionCodec.decode(r) as RegionId;

/** The bucket that holds `time`. */
const bucketAt = (buckets: TimeseriesBucket[], bucketSeconds: bigint, time: string) =>
  buckets.find((b) => {
    const start = timestampDate(b.start!).getTime();
    return start <= Date.parse(time) && Date.parse(time) < start + Number(bucketSeconds) * 1000;
  });

const invalid = async (call: Promise<unknown>) => {
  const error = ConnectError.from(await call.catch((e: unknown) => e));
  expect(error.code).toBe(Code.InvalidArgument);
  return error.rawMessage;
};

describe.each(BACKENDS)("result reads on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof MonitorService>;
  let readClient: Client<typeof MonitorService>;
  const store = (results: ResultMessage[]) => storeResults(api.db.prisma, results, STATUS_RULES);
  const newMonitor = async () => (await client.createHTTPMonitor({ monitor: { name: "m", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1H, regions: [AMS, FRA] } })).monitor!.id;

  beforeAll(async () => {
    api = await startTestApi(backend);
    const { write, read } = await api.workspace();
    client = api.client(write.key);
    readClient = api.client(read.key);
  });
  afterAll(() => api.close());

  describe("GetMonitorTimeseries", () => {
    it("counts the last hour's results per minute with exact percentiles, per region or all", async () => {
      const id = await newMonitor();
      const at = ago(10 * MINUTE);
      await store([
        ...[10, 20, 30, 40, 50].map((latencyMs) => checkResult(id, "hostA-ams", at, "success", { latencyMs })),
        checkResult(id, "hostA-ams", at, "degraded", { latencyMs: 60 }),
        // Failed checks are counted, not timed.
        checkResult(id, "hostA-ams", at, "error", { latencyMs: 9_000 }),
        checkResult(id, "hostB-fra", at, "success", { latencyMs: 1_000 }),
      ]);
      const all = await readClient.getMonitorTimeseries({ id, timeRange: TimeRange.TIME_RANGE_1H });
      expect(all.bucketSeconds).toBe(60n);
      expect(all.buckets).toHaveLength(61);
      expect(bucketAt(all.buckets, all.bucketSeconds, at)).toMatchObject({ count: 8n, successful: 6n, degraded: 1n, failed: 1n, p50: 40n, p95: 1_000n, p99: 1_000n });
      expect(all.buckets.filter((b) => b.count > 0n)).toHaveLength(1);

      const ams = await readClient.getMonitorTimeseries({ id, timeRange: TimeRange.TIME_RANGE_1H, regions: [AMS] });
      expect(bucketAt(ams.buckets, ams.bucketSeconds, at)).toMatchObject({ count: 7n, successful: 5n, degraded: 1n, failed: 1n, p50: 30n, p95: 60n, p99: 60n });
    });

    it("reads a day in 15-minute buckets, a week by the hour and two weeks by the day, from the aggregates", async () => {
      const id = await newMonitor();
      const recent = ago(3 * HOUR);
      const old = ago(10 * DAY);
      await store([
        ...[100, 200, 300].map((latencyMs) => checkResult(id, "hostA-ams", recent, "success", { latencyMs })),
        checkResult(id, "hostB-fra", recent, "error"),
        ...[100, 200, 300].map((latencyMs) => checkResult(id, "hostB-fra", old, "success", { latencyMs })),
      ]);
      const near = (ms: bigint, exact: number) => expect(Math.abs(Number(ms) - exact)).toBeLessThanOrEqual(Math.ceil(exact * PERCENTILE_RELATIVE_ERROR) + 1);
      const cases = [
        { timeRange: TimeRange.TIME_RANGE_1D, bucketSeconds: 900n, length: 97 },
        { timeRange: TimeRange.TIME_RANGE_7D, bucketSeconds: 3_600n, length: 169 },
        { timeRange: TimeRange.TIME_RANGE_14D, bucketSeconds: 86_400n, length: 15 },
      ];
      for (const { timeRange, bucketSeconds, length } of cases) {
        const series = await readClient.getMonitorTimeseries({ id, timeRange });
        expect([series.timeRange, series.bucketSeconds, series.buckets.length]).toEqual([timeRange, bucketSeconds, length]);
        const bucket = bucketAt(series.buckets, bucketSeconds, recent)!;
        expect(bucket).toMatchObject({ count: 4n, successful: 3n, failed: 1n });
        near(bucket.p50, 200);
        near(bucket.p99, 300);
        const perRegion = bucketAt((await readClient.getMonitorTimeseries({ id, timeRange, regions: [FRA] })).buckets, bucketSeconds, recent)!;
        expect(perRegion).toMatchObject({ count: 1n, failed: 1n, p50: 0n });
      }
      const twoWeeks = await readClient.getMonitorTimeseries({ id, timeRange: TimeRange.TIME_RANGE_14D, regions: [FRA] });
      const oldDay = bucketAt(twoWeeks.buckets, twoWeeks.bucketSeconds, old)!;
      expect(oldDay).toMatchObject({ count: 3n, successful: 3n });
      near(oldDay.p95, 300);
    });

    it("refuses a missing range, unknown or repeated regions, and another workspace's monitor", async () => {
      const id = await newMonitor();
      expect(await invalid(client.getMonitorTimeseries({ id }))).toBe("timeRange: is required");
      expect(await invalid(client.getMonitorTimeseries({ id, timeRange: TimeRange.TIME_RANGE_1H, regions: [999 as Region] }))).toContain("regions[0]: must be one of");
      expect(await invalid(client.getMonitorTimeseries({ id, timeRange: TimeRange.TIME_RANGE_1H, regions: [AMS, AMS] }))).toContain("regions[1]: must not repeat");
      // Summaries read hourly aggregates only, too coarse for the last hour.
      expect(await invalid(client.getMonitorSummary({ id, timeRange: TimeRange.TIME_RANGE_1H }))).toContain("timeRange: must be one of 1d, 7d, 14d");
      const stranger = api.client((await api.workspace()).read.key);
      expect(ConnectError.from(await stranger.getMonitorTimeseries({ id, timeRange: TimeRange.TIME_RANGE_1H }).catch((e) => e)).code).toBe(Code.NotFound);
    });
  });

  describe("ListCheckResults", () => {
    it("pages newest first with every field, and a cursor that results stored later do not move", async () => {
      const id = await newMonitor();
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      // The newest as an HTTP check that sent a traceparent reports it; the others as checks (or agents older than traces) without one.
      const results = Array.from({ length: 5 }, (_, i) =>
        checkResult(id, i % 2 ? "hostB-fra" : "hostA-ams", ago((10 - i) * MINUTE), i === 4 ? "error" : "success", i === 4 ? { traceId } : {}),
      );
      await store(results);
      const first = await readClient.listCheckResults({ id, limit: 2 });
      expect(first.results.map((r) => r.id)).toEqual([results[4]!.id, results[3]!.id]);
      expect(first.results[0]).toMatchObject({
        region: AMS,
        status: MonitorStatus.ERROR,
        statusCode: 503,
        latencyMs: 80,
        failureReason: "http_status",
        error: "HTTP 503",
        trigger: "scheduled",
        attempts: 4,
        timing: { connectMs: 1.5, firstByteMs: 70, transferMs: 8.5 },
        traceId,
      });
      expect(first.results[0]!.timing!.dnsMs).toBeUndefined();
      expect(timestampDate(first.results[0]!.time!).toISOString()).toBe(results[4]!.startedAt);
      expect(first.results[1]).toMatchObject({ region: FRA, status: MonitorStatus.ACTIVE, failureReason: "", error: "", traceId: "" });

      // Newer results arrive between pages; the next page goes on where the first ended.
      await store([checkResult(id, "hostA-ams", ago(MINUTE)), checkResult(id, "hostA-ams", ago(2 * MINUTE))]);
      const second = await readClient.listCheckResults({ id, limit: 2, cursor: first.nextCursor });
      expect(second.results.map((r) => r.id)).toEqual([results[2]!.id, results[1]!.id]);
      const last = await readClient.listCheckResults({ id, limit: 2, cursor: second.nextCursor });
      expect([last.results.map((r) => r.id), last.nextCursor]).toEqual([[results[0]!.id], ""]);

      const fra = await readClient.listCheckResults({ id, regions: [FRA] });
      expect(fra.results.map((r) => r.id)).toEqual([results[3]!.id, results[1]!.id]);
      expect((await readClient.listCheckResults({ id })).results).toHaveLength(7);
    });

    it("refuses a limit out of range, a cursor it did not answer and unknown regions", async () => {
      const id = await newMonitor();
      expect(await invalid(client.listCheckResults({ id, limit: 101 }))).toBe("limit: must be an integer from 1 to 100");
      expect(await invalid(client.listCheckResults({ id, limit: 0 }))).toBe("limit: must be an integer from 1 to 100");
      expect(await invalid(client.listCheckResults({ id, cursor: "not a cursor" }))).toBe("cursor: must be a next_cursor this API answered");
      for (const made of ["[1]", '[1e20,"x"]', '[9000000000000000,"x"]', '[1,"a\\u0000b"]', '{"t":1}']) {
        expect(await invalid(client.listCheckResults({ id, cursor: Buffer.from(made).toString("base64url") }))).toBe("cursor: must be a next_cursor this API answered");
      }
      expect(await invalid(client.listCheckResults({ id, regions: [999 as Region] }))).toContain("regions[0]: must be one of");
    });
  });

  describe("ListRegions", () => {
    it("lists every region with its connected agents, its backlog and the workspace's checks per minute", async () => {
      const { write } = await api.workspace();
      const own = api.client(write.key);
      const { monitor } = await own.createHTTPMonitor({ monitor: { name: "m", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1H, regions: [Region.HOSTB_SIN] } });
      // A check asked for in a region without agents waits in its queue.
      await own.triggerMonitor({ id: monitor!.id });
      await storeResults(api.db.prisma, Array.from({ length: 10 }, () => checkResult(monitor!.id, region(AMS), ago(MINUTE))), STATUS_RULES);
      // Another workspace's checks are not this one's.
      await store([checkResult(await newMonitor(), "hostA-ams", ago(MINUTE))]);

      // An agent as the agents connect: a BullMQ worker on its region's queue, named after itself.
      const connection = connectRedis(redisServerUrl(), "test-agent");
      const agent = new Worker(checkQueueName(region(AMS)), async () => {}, { connection, prefix: api.redisPrefix, name: "agent@test:1", autorun: false });
      void agent.run();
      try {
        await agent.waitUntilReady();
        // The worker names its blocking connection once it starts waiting for jobs.
        let regions = (await own.listRegions({})).regions;
        for (let i = 0; i < 100 && regions.find((r) => r.region === AMS)!.agents.length === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          regions = (await own.listRegions({})).regions;
        }
        expect(regions.map((r) => r.region)).toEqual(regionCodec.values.map((r) => regionCodec.encode(r)));
        const ams = regions.find((r) => r.region === AMS)!;
        expect(ams.agents.map((a) => a.name)).toEqual(["agent@test:1"]);
        expect(ams.lastSeenAt).toEqual(ams.agents[0]!.lastSeenAt);
        expect(ams.checksPerMinute).toBe(2);
        const sin = regions.find((r) => r.region === Region.HOSTB_SIN)!;
        expect(sin.agents).toEqual([]);
        expect(sin.lastSeenAt).toBeUndefined();
        expect(sin.queueDepth).toBeGreaterThanOrEqual(1n);
        expect(sin.oldestCheckAgeSeconds).toBeGreaterThanOrEqual(0);
        expect(regions.find((r) => r.region === Region.HOSTC_US_WEST2)).toMatchObject({ queueDepth: 0n, oldestCheckAgeSeconds: 0, checksPerMinute: 0 });
      } finally {
        await agent.close();
        await connection.quit();
      }
    });
  });
});
