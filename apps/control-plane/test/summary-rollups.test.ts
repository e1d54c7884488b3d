import { Periodicity } from "@vigil/proto";
import { REGION_IDS, SUMMARY_TIME_RANGES, type RegionId } from "@vigil/domain";
import type { ResultMessage } from "@vigil/queue";
import { ALL_REGIONS, PER_REGION } from "../src/results/aggregates";
import { pruneResults } from "../src/results/retention";
import { storeResults } from "../src/results/store";
import { monitorSummary, rangeStart, summaryFrom } from "../src/results/summary";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { migrationStatements } from "./support/migrations";
import { checkResult } from "./support/results";

const NOW = new Date();
const HOUR = 3_600_000;
const RANGES = SUMMARY_TIME_RANGES;
const REGIONS: RegionId[] = ["hostA-ams", "hostB-fra", "hostC-us-east4", "hostB-par", "hostC-us-west2"];
const STATUSES: ResultMessage["status"][] = ["success", "success", "success", "degraded", "error"];

/**
 * Results over the last 16 days (so that retention has something to delete), every 5 hours and a
 * half in each region, so that hours and days split across regions; latencies from 1 to 2,000 ms.
 */
function history(monitorId: string): ResultMessage[] {
  const results: ResultMessage[] = [];
  let n = 0;
  for (let at = NOW.getTime() - 16 * 24 * HOUR; at < NOW.getTime(); at += 5.5 * HOUR) {
    for (const region of REGIONS) {
      n++;
      const startedAt = new Date(at - (n % 7) * 60_000).toISOString();
      results.push(checkResult(monitorId, region, startedAt, STATUSES[n % STATUSES.length], { latencyMs: 1 + ((n * 7919) % 2_000) }));
    }
  }
  return results;
}

describe.each(BACKENDS)("summaries of all regions from the roll-ups on %s", (backend) => {
  let api: TestApi;
  let monitorId: string;
  let stored: ResultMessage[];

  const summaries = async () =>
    Promise.all(
      RANGES.map(async (range) => ({
        range,
        rollUps: await monitorSummary(api.db.prisma, monitorId, range, [], NOW),
        everyRegionListed: await monitorSummary(api.db.prisma, monitorId, range, [...REGION_IDS], NOW),
        perRegion: await summaryFrom(api.db.prisma, PER_REGION, REGION_IDS, monitorId, rangeStart(range, NOW), NOW),
      })),
    );

  beforeAll(async () => {
    api = await startTestApi(backend);
    const client = api.client((await api.workspace()).write.key);
    const { monitor } = await client.createTCPMonitor({ monitor: { name: "rolled up", uri: "127.0.0.1:1", periodicity: Periodicity.PERIODICITY_30S } });
    monitorId = monitor!.id;
    stored = history(monitorId);
    // Batches out of time order; one delivered twice, and a result twice within a batch.
    const batches = [stored.slice(300), stored.slice(0, 150), stored.slice(150, 300)];
    for (const batch of batches) await storeResults(api.db.prisma, batch, STATUS_RULES);
    expect((await storeResults(api.db.prisma, [...batches[1]!, stored[0]!], STATUS_RULES)).stored).toBe(0);
  });
  afterAll(() => api.close());

  it("gives exactly the summary of the per-region aggregates, counting redelivered results once", async () => {
    for (const { range, rollUps, everyRegionListed, perRegion } of await summaries()) {
      expect({ range, summary: rollUps }).toEqual({ range, summary: perRegion });
      expect(everyRegionListed).toEqual(perRegion);
      const from = rangeStart(range, NOW).getTime();
      const inRange = stored.filter((r) => Date.parse(r.startedAt) >= from);
      const count = (status: ResultMessage["status"]) => inRange.filter((r) => r.status === status).length;
      expect([rollUps.totalSuccessful, rollUps.totalDegraded, rollUps.totalFailed]).toEqual([count("success"), count("degraded"), count("error")]);
      expect(rollUps.percentiles[50]).toBeGreaterThan(0);
    }
  });

  it("keeps giving it after retention, which deletes roll-up rows on the per-region rule", async () => {
    const rowsBefore = (table: string, column: string) =>
      api.db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE monitor_id = $1 AND ${column} < $2`, monitorId, new Date(NOW.getTime() - 15 * 24 * HOUR));
    expect((await rowsBefore("all_region_latency_buckets", "hour"))[0]!.n).toBeGreaterThan(0);
    await pruneResults(api.db.prisma, { resultDays: 2, dailyAggregateDays: 14 }, NOW);
    for (const [table, column] of [["all_region_result_counts", "hour"], ["all_region_latency_buckets", "hour"], ["all_region_daily_latency_buckets", "day"]] as const) {
      expect({ table, rows: (await rowsBefore(table, column))[0]!.n }).toEqual({ table, rows: 0 });
    }
    for (const { range, rollUps, perRegion } of await summaries()) {
      expect({ range, summary: rollUps }).toEqual({ range, summary: perRegion });
    }
  });

  it("is rebuilt by the upgrade migration from the per-region aggregates stored before it", async () => {
    const tables = [ALL_REGIONS.counts, ALL_REGIONS.hourly, ALL_REGIONS.daily].map((table) => table.name);
    const snapshot = () =>
      Promise.all(tables.map((table) => api.db.prisma.$queryRawUnsafe<unknown[]>(`SELECT * FROM ${table} ORDER BY 1, 2, 3`)));
    const kept = await snapshot();
    expect(kept.every((rows) => rows.length > 0)).toBe(true);
    for (const table of tables) await api.db.prisma.$executeRawUnsafe(`DELETE FROM ${table}`);
    for (const statement of migrationStatements("all_region_rollups", "-- Fill the roll-ups")) await api.db.prisma.$executeRawUnsafe(statement);
    expect(await snapshot()).toEqual(kept);
  });
});
