import { Periodicity, Region } from "@vigil/proto";
import type { ResultMessage } from "@vigil/queue";
import { DAILY_AGGREGATE_RETENTION_DAYS, PERCENTILE_RELATIVE_ERROR } from "@vigil/domain";
import { AGGREGATES } from "../src/results/aggregates";
import { storeResults } from "../src/results/store";
import { pruneResults } from "../src/results/retention";
import { monitorSummary } from "../src/results/summary";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { checkResult } from "./support/results";

const NOW = new Date();
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString();

const result = (monitorId: string, overrides: Partial<ResultMessage> = {}) =>
  checkResult(monitorId, "hostA-ams", minutesAgo(5), "success", { latencyMs: 100, statusCode: 200, ...overrides });

describe.each(BACKENDS)("storing results on %s", (backend) => {
  let api: TestApi;
  let monitorId: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    const client = api.client((await api.workspace()).write.key);
    const { monitor } = await client.createTCPMonitor({
      monitor: { name: "db", uri: "127.0.0.1:5432", periodicity: Periodicity.PERIODICITY_30S, regions: [] },
    });
    monitorId = monitor!.id;
  });
  afterAll(() => api.close());

  it("stores a batch once, however often it is delivered (twice within it too), and skips results of deleted monitors", async () => {
    const first = result(monitorId);
    const batch = [first, result(monitorId, { region: "hostB-fra", id: "hostB-fra:job-x" }), { ...first }, result("deleted-monitor")];
    expect((await storeResults(api.db.prisma, batch, STATUS_RULES)).stored).toBe(2);
    expect((await storeResults(api.db.prisma, batch, STATUS_RULES)).stored).toBe(0);
    expect(await api.db.prisma.checkResult.count({ where: { monitorId } })).toBe(2);
    // Region states are saved by the results stored, also from a batch where some were not.
    const regions = await api.db.prisma.monitorRegionStatus.findMany({ where: { monitorId }, orderBy: { region: "asc" } });
    expect(regions.map((r) => [r.region, r.status])).toEqual([["hostA-ams", "active"], ["hostB-fra", "active"]]);
    const summary = await monitorSummary(api.db.prisma, monitorId, "1d", [], NOW);
    expect(summary).toMatchObject({ totalSuccessful: 2, totalDegraded: 0, totalFailed: 0 });
  });

  it("moves each region's status to its newest result, whatever order results arrive in", async () => {
    const client = api.client((await api.workspace()).write.key);
    const { monitor } = await client.createTCPMonitor({
      monitor: { name: "regions", uri: "127.0.0.1:1", periodicity: Periodicity.PERIODICITY_5M, regions: [Region.HOSTA_AMS, Region.HOSTC_US_EAST4, Region.HOSTB_PAR] },
    });
    const id = monitor!.id;
    await storeResults(api.db.prisma, [
      result(id, { startedAt: minutesAgo(5) }),
      result(id, { region: "hostC-us-east4", status: "error", error: "refused", reason: "connect", startedAt: minutesAgo(3) }),
      result(id, { region: "hostC-us-east4", status: "degraded", startedAt: minutesAgo(4) }),
    ], STATUS_RULES);
    expect(await api.pipeline.statuses.regions(id)).toEqual([
      { region: "hostA-ams", status: "active" },
      { region: "hostC-us-east4", status: "error" },
      { region: "hostB-par", status: "unknown" },
    ]);
    const row = await api.db.prisma.monitorRegionStatus.findUniqueOrThrow({ where: { monitorId_region: { monitorId: id, region: "hostC-us-east4" } } });
    expect(row).toMatchObject({ status: "error", error: "refused", reason: "connect" });
    expect((await api.db.prisma.checkResult.findFirstOrThrow({ where: { monitorId: id, status: "error" } })).reason).toBe("connect");

    // An older result arriving late does not move the region back.
    await storeResults(api.db.prisma, [result(id, { region: "hostC-us-east4", status: "success", startedAt: minutesAgo(30) })], STATUS_RULES);
    expect((await api.pipeline.statuses.regions(id))[1]!.status).toBe("error");
    await storeResults(api.db.prisma, [result(id, { region: "hostC-us-east4", status: "success", startedAt: minutesAgo(1) })], STATUS_RULES);
    expect((await api.pipeline.statuses.regions(id))[1]!.status).toBe("active");
  });

  it("deletes a monitor's results and every aggregate row with the monitor, and nothing of another", async () => {
    const client = api.client((await api.workspace()).write.key);
    const create = async (name: string) =>
      (await client.createTCPMonitor({ monitor: { name, uri: "127.0.0.1:1", periodicity: Periodicity.PERIODICITY_1M } })).monitor!.id;
    const [gone, kept] = [await create("deleted"), await create("kept")];
    const results = (id: string) => [
      result(id),
      result(id, { region: "hostB-fra", id: `hostB-fra:${id}`, latencyMs: 300 }),
      // Another hour than the others, within the retention (the pruning test below counts what it deletes).
      result(id, { id: `old:${id}`, startedAt: minutesAgo(20 * 60), status: "error", error: "refused", reason: "connect" }),
    ];
    await storeResults(api.db.prisma, [...results(gone), ...results(kept)], STATUS_RULES);
    const rowsOf = async (id: string) =>
      Object.fromEntries(
        await Promise.all(
          ["check_results", ...AGGREGATES.map((table) => table.name)].map(async (table) => {
            const [row] = await api.db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE monitor_id = $1`, id);
            return [table, row!.n] as const;
          }),
        ),
      );
    const before = await rowsOf(gone);
    expect(Object.values(before).every((n) => n > 0)).toBe(true);

    await client.deleteMonitor({ id: gone });
    expect(Object.values(await rowsOf(gone)).every((n) => n === 0)).toBe(true);
    expect(await rowsOf(kept)).toEqual(before);
    // Its results still arriving (checks in flight when it was deleted) are stored nowhere.
    expect((await storeResults(api.db.prisma, [result(gone, { id: "late" })], STATUS_RULES)).stored).toBe(0);
    expect(Object.values(await rowsOf(gone)).every((n) => n === 0)).toBe(true);
  });

  it("prunes raw results past the retention and aggregates no range can reach", async () => {
    const client = api.client((await api.workspace()).write.key);
    const { monitor } = await client.createTCPMonitor({ monitor: { name: "r", uri: "127.0.0.1:1", periodicity: Periodicity.PERIODICITY_1M } });
    const id = monitor!.id;
    const daysAgo = (d: number) => minutesAgo(d * 24 * 60);
    await storeResults(api.db.prisma, [
      result(id, { startedAt: daysAgo(1) }),
      result(id, { startedAt: daysAgo(3) }),
      result(id, { startedAt: daysAgo(16) }),
    ], STATUS_RULES);
    expect(await pruneResults(api.db.prisma, { resultDays: 2, dailyAggregateDays: DAILY_AGGREGATE_RETENTION_DAYS.default }, NOW)).toBe(2);
    expect((await api.db.prisma.checkResult.findMany({ where: { monitorId: id } })).map((r) => r.startedAt.toISOString())).toEqual([daysAgo(1)]);
    // Summaries still see the 3-day-old result through its aggregate; the 16-day-old one is gone everywhere.
    expect((await monitorSummary(api.db.prisma, id, "7d", [], NOW)).totalSuccessful).toBe(2);
    expect(await api.db.prisma.resultCount.count({ where: { monitorId: id } })).toBe(2);
    expect(await api.db.prisma.latencyBucket.count({ where: { monitorId: id, hour: { lt: new Date(daysAgo(15)) } } })).toBe(0);
  });

  it("keeps the daily aggregates, per region and rolled up, for DAILY_AGGREGATE_RETENTION_DAYS and no longer", async () => {
    const client = api.client((await api.workspace()).write.key);
    const { monitor } = await client.createTCPMonitor({ monitor: { name: "y", uri: "127.0.0.1:1", periodicity: Periodicity.PERIODICITY_1M } });
    const id = monitor!.id;
    const daysAgo = (d: number) => minutesAgo(d * 24 * 60);
    await storeResults(api.db.prisma, [
      result(id, { startedAt: daysAgo(20) }),
      result(id, { startedAt: daysAgo(20), region: "hostB-fra", id: "b-20", status: "error" }),
      result(id, { startedAt: daysAgo(399) }),
      result(id, { startedAt: daysAgo(401) }),
    ], STATUS_RULES);
    await pruneResults(api.db.prisma, { resultDays: 14, dailyAggregateDays: DAILY_AGGREGATE_RETENTION_DAYS.default }, NOW);
    const perRegion = await api.db.prisma.dailyResultCount.findMany({ where: { monitorId: id }, orderBy: [{ day: "asc" }, { region: "asc" }] });
    expect(perRegion.map((d) => [d.day.toISOString().slice(0, 10), d.region, d.successful, d.failed])).toEqual([
      [daysAgo(399).slice(0, 10), "hostA-ams", 1, 0],
      [daysAgo(20).slice(0, 10), "hostA-ams", 1, 0],
      [daysAgo(20).slice(0, 10), "hostB-fra", 0, 1],
    ]);
    const rolledUp = await api.db.prisma.allRegionDailyResultCount.findMany({ where: { monitorId: id }, orderBy: { day: "asc" } });
    expect(rolledUp.map((d) => [d.day.toISOString().slice(0, 10), d.successful, d.failed])).toEqual([
      [daysAgo(399).slice(0, 10), 1, 0],
      [daysAgo(20).slice(0, 10), 1, 1],
    ]);
    expect(await api.db.prisma.allRegionDailyLatencyBucket.count({ where: { monitorId: id } })).toBe(2);
  });

  it("combines whole days from the daily buckets with the hours of the partial days", async () => {
    const client = api.client((await api.workspace()).write.key);
    const { monitor } = await client.createTCPMonitor({ monitor: { name: "d", uri: "127.0.0.1:1", periodicity: Periodicity.PERIODICITY_1M } });
    const id = monitor!.id;
    const day = 24 * 60;
    await storeResults(api.db.prisma, [
      result(id, { latencyMs: 10, startedAt: minutesAgo(4 * day) }),
      result(id, { latencyMs: 20, startedAt: minutesAgo(3 * day) }),
      result(id, { latencyMs: 30, startedAt: minutesAgo(2 * day) }),
      result(id, { latencyMs: 40, startedAt: minutesAgo(30) }),
      result(id, { latencyMs: 50, startedAt: minutesAgo(7 * day - 30) }),
    ], STATUS_RULES);
    const week = await monitorSummary(api.db.prisma, id, "7d", [], NOW);
    expect(week.totalSuccessful).toBe(5);
    expect([week.percentiles[50], week.percentiles[75], week.percentiles[99]]).toEqual([30, 40, 50]);
    const day1 = await monitorSummary(api.db.prisma, id, "1d", [], NOW);
    expect([day1.totalSuccessful, day1.percentiles[50]]).toEqual([1, 40]);
  });

  it("summarises counts, last ping and percentiles per range and region", async () => {
    const client = api.client((await api.workspace()).write.key);
    const { monitor } = await client.createTCPMonitor({ monitor: { name: "p", uri: "127.0.0.1:1", periodicity: Periodicity.PERIODICITY_1M } });
    const id = monitor!.id;
    // 1..100 ms in hostA-ams within the last day; 1000 ms in hostB-fra three days ago; one failure.
    await storeResults(api.db.prisma, [
      ...Array.from({ length: 100 }, (_, i) => result(id, { latencyMs: i + 1, startedAt: minutesAgo(10 + i) })),
      result(id, { region: "hostB-fra", latencyMs: 1000, status: "degraded", startedAt: minutesAgo(3 * 24 * 60) }),
      result(id, { status: "error", latencyMs: 5000, startedAt: minutesAgo(2) }),
    ], STATUS_RULES);
    const day = await monitorSummary(api.db.prisma, id, "1d", [], NOW);
    expect(day).toMatchObject({ totalSuccessful: 100, totalDegraded: 0, totalFailed: 1 });
    expect(day.lastPingAt?.toISOString()).toBe(minutesAgo(2));
    const within = (actual: number, exact: number) =>
      expect(Math.abs(actual - exact)).toBeLessThanOrEqual(Math.ceil(exact * PERCENTILE_RELATIVE_ERROR) + 1);
    within(day.percentiles[50], 50);
    within(day.percentiles[90], 90);
    within(day.percentiles[99], 99);

    const week = await monitorSummary(api.db.prisma, id, "7d", [], NOW);
    expect(week).toMatchObject({ totalSuccessful: 100, totalDegraded: 1, totalFailed: 1 });
    within(week.percentiles[99], 100);
    const fra = await monitorSummary(api.db.prisma, id, "14d", ["hostB-fra"], NOW);
    expect(fra).toMatchObject({ totalSuccessful: 0, totalDegraded: 1, totalFailed: 0 });
    within(fra.percentiles[50], 1000);

    const none = await monitorSummary(api.db.prisma, id, "1d", ["hostC-us-west2"], NOW);
    expect(none).toEqual({ lastPingAt: null, totalSuccessful: 0, totalDegraded: 0, totalFailed: 0, percentiles: { 50: 0, 75: 0, 90: 0, 95: 0, 99: 0 } });
  });
});
