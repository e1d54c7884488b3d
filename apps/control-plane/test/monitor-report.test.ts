/**
 * GetMonitorReport through the API on both backends: a month of results stored as the ingest stores them, in two regions,
 * with incidents overlapping the month's edges.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { PERCENTILE_RELATIVE_ERROR } from "@vigil/domain";
import { Periodicity, Region } from "@vigil/proto";
import type { ResultMessage } from "@vigil/queue";
import { storeResults } from "../src/results/store";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { checkResult } from "./support/results";

async function rejection(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call was accepted");
}

const now = new Date();
/** The month before this one, and a UTC time in it. */
const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
const month = last.toISOString().slice(0, 7);
const inMonth = (day: number, hour = 12, minute = 0) => new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), day, hour, minute));

describe.each(BACKENDS)("monthly monitor reports on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
  });
  afterAll(() => api.close());

  it("gives availability per region and overall, the incidents, the downtime and the latency percentiles of the month", async () => {
    const { monitor } = await api.client(ws.write.key).createHTTPMonitor({ monitor: { name: "shop", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M } });
    const id = monitor!.id;
    const results: ResultMessage[] = [];
    // hostA-ams: 100 checks at 100 ms, 1 failed; hostB-fra: 49 checks at 300 ms and 1 degraded (4 s).
    for (let i = 0; i < 99; i++) results.push(checkResult(id, "hostA-ams", inMonth(3, 0, i).toISOString(), "success", { latencyMs: 100 }));
    results.push(checkResult(id, "hostA-ams", inMonth(10).toISOString(), "error"));
    for (let i = 0; i < 49; i++) results.push(checkResult(id, "hostB-fra", inMonth(20, 0, i).toISOString(), "success", { latencyMs: 300 }));
    results.push(checkResult(id, "hostB-fra", inMonth(20, 5).toISOString(), "degraded"));
    // Before and after the month: not in it.
    results.push(checkResult(id, "hostA-ams", new Date(last.getTime() - 60_000).toISOString(), "error"));
    await storeResults(api.db.prisma, results, STATUS_RULES);
    // Incidents: one from the month before into its first hour, one of 2 hours inside it, and a degraded one (no downtime).
    const { workspaceId } = await api.db.prisma.monitor.findUniqueOrThrow({ where: { id } });
    const incident = (startedAt: Date, resolvedAt: Date | null, severity = "error") =>
      api.db.prisma.incident.create({ data: { workspaceId, monitorId: id, severity, startedAt, resolvedAt, regions: ["hostA-ams"] } });
    await api.db.prisma.incident.deleteMany({ where: { monitorId: id } });
    const across = await incident(new Date(last.getTime() - 3_600_000), inMonth(1, 1));
    const inside = await incident(inMonth(10, 12), inMonth(10, 14));
    const slow = await incident(inMonth(20, 5), inMonth(20, 6), "degraded");
    await incident(new Date(last.getTime() - 7_200_000), new Date(last.getTime() - 3_600_000));

    const report = await api.client(ws.read.key).getMonitorReport({ id, month });
    expect({ id: report.id, name: report.name, month: report.month }).toEqual({ id, name: "shop", month });
    expect(timestampDate(report.from!)).toEqual(last);
    expect(report.overall).toMatchObject({ successful: 148n, degraded: 1n, failed: 1n });
    expect(report.overall!.availability).toBeCloseTo((100 * 149) / 150, 9);
    expect(report.regions.map((r) => [r.region, r.figures!.successful, r.figures!.failed, r.figures!.availability])).toEqual([
      [Region.HOSTA_AMS, 99n, 1n, 99],
      [Region.HOSTB_FRA, 49n, 0n, 100],
    ]);
    // Percentiles from the buckets: within the documented error of the exact ones.
    const near = (actual: bigint, exact: number) => expect(Math.abs(Number(actual) - exact)).toBeLessThanOrEqual(exact * PERCENTILE_RELATIVE_ERROR + 1);
    near(report.overall!.p50, 100);
    near(report.overall!.p90, 300);
    // 149 answered checks: the 148th (p99) is still one of hostB-fra's 300 ms.
    near(report.overall!.p99, 300);
    near(report.regions[0]!.figures!.p99, 100);
    near(report.regions[1]!.figures!.p50, 300);
    expect(report.percentileRelativeError).toBeCloseTo(PERCENTILE_RELATIVE_ERROR, 12);
    expect(report.incidents.map((i) => [i.id, i.severity, i.durationSeconds])).toEqual([
      [across.id, "error", 3600n],
      [inside.id, "error", 7200n],
      [slow.id, "degraded", 3600n],
    ]);
    expect(report.downtimeSeconds).toBe(3n * 3600n);
  });

  it("answers a month without checks with zeros, and refuses a bad or future month naming the field", async () => {
    const { monitor } = await api.client(ws.write.key).createTCPMonitor({ monitor: { name: "quiet", uri: "example.com:1", periodicity: Periodicity.PERIODICITY_1M } });
    const empty = await api.client(ws.read.key).getMonitorReport({ id: monitor!.id, month: "2025-02" });
    expect(empty.overall).toMatchObject({ successful: 0n, failed: 0n, p50: 0n });
    expect(empty.overall!.availability).toBeUndefined();
    expect([empty.regions, empty.incidents, empty.downtimeSeconds]).toEqual([[], [], 0n]);
    for (const bad of ["2026-13", "2026-1", "26-11", "", "2026-11-01"]) {
      const refused = await rejection(api.client(ws.read.key).getMonitorReport({ id: monitor!.id, month: bad }));
      expect([bad, refused.code, refused.rawMessage]).toEqual([bad, Code.InvalidArgument, "month: must be a month as YYYY-MM, e.g. 2026-11"]);
    }
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
    const future = await rejection(api.client(ws.read.key).getMonitorReport({ id: monitor!.id, month: next }));
    expect([future.code, future.rawMessage]).toEqual([Code.InvalidArgument, `month: must not be after the current month (${now.toISOString().slice(0, 7)})`]);
    expect((await api.client(ws.read.key).getMonitorReport({ id: monitor!.id, month: now.toISOString().slice(0, 7) })).month).toBe(now.toISOString().slice(0, 7));
    expect((await rejection(api.client(ws.read.key).getMonitorReport({ id: "no-such-monitor", month }))).code).toBe(Code.NotFound);
  });
});
