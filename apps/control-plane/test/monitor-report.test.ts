/**
 * GetMonitorReport through the API on both backends: a month of results stored as the ingest stores them, in two regions,
 * with incidents overlapping the month's edges.
 */
import { Code } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { PERCENTILE_RELATIVE_ERROR } from "@vigil/domain";
import { Periodicity, Region } from "@vigil/proto";
import type { ResultMessage } from "@vigil/queue";
import { storeResults } from "../src/results/store";
import { rejection } from "./support/codes";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { checkResult } from "./support/results";


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

  it("reports a status page's month: each monitor component's checks and downtime, and the page's", async () => {
    const client = api.client(ws.write.key);
    const pages = api.statusPageClient(ws.write.key);
    const web = (await client.createHTTPMonitor({ monitor: { name: "web", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M } })).monitor!;
    const db = (await client.createTCPMonitor({ monitor: { name: "db", uri: "db.example.com:5432", periodicity: Periodicity.PERIODICITY_1M } })).monitor!;
    const { statusPage } = await pages.createStatusPage({ statusPage: { title: "Acme", slug: `report-${backend}` } });
    const pageId = statusPage!.id;
    const dbComponent = (await pages.createStatusPageComponent({ component: { pageId, type: "monitor", monitorId: db.id, name: "Database", order: 1 } })).component!;
    const webComponent = (await pages.createStatusPageComponent({ component: { pageId, type: "monitor", monitorId: web.id, order: 2 } })).component!;
    await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "Docs" } });
    await storeResults(
      api.db.prisma,
      [
        ...Array.from({ length: 9 }, (_, i) => checkResult(web.id, "hostA-ams", inMonth(4, 0, i).toISOString(), "success")),
        checkResult(web.id, "hostA-ams", inMonth(4, 1).toISOString(), "error"),
        ...Array.from({ length: 10 }, (_, i) => checkResult(db.id, "hostA-ams", inMonth(6, 0, i).toISOString(), "success")),
      ],
      STATUS_RULES,
    );
    const { workspaceId } = await api.db.prisma.monitor.findUniqueOrThrow({ where: { id: web.id } });
    await api.db.prisma.incident.deleteMany({ where: { monitorId: { in: [web.id, db.id] } } });
    const incident = (monitorId: string, startedAt: Date, resolvedAt: Date) =>
      api.db.prisma.incident.create({ data: { workspaceId, monitorId, severity: "error", startedAt, resolvedAt, regions: ["hostA-ams"] } });
    // Overlapping outages: the page is down 3 hours, not 4.
    await incident(web.id, inMonth(8, 10), inMonth(8, 12));
    await incident(db.id, inMonth(8, 11), inMonth(8, 13));

    const report = await api.statusPageClient(ws.read.key).getStatusPageReport({ id: pageId, month });
    expect({ name: report.name, month: report.month, downtime: report.downtimeSeconds }).toEqual({ name: "Acme", month, downtime: 3n * 3600n });
    expect(report.availability).toBeCloseTo(95, 9);
    expect(report.components.map((c) => [c.componentId, c.name, c.monitorId, c.successful, c.failed, c.availability, c.downtimeSeconds, c.incidents])).toEqual([
      [dbComponent.id, "Database", db.id, 10n, 0n, 100, 7200n, 1n],
      [webComponent.id, "web", web.id, 9n, 1n, 90, 7200n, 1n],
    ]);
    const refused = await rejection(api.statusPageClient(ws.read.key).getStatusPageReport({ id: pageId, month: "11-2026" }));
    expect([refused.code, refused.rawMessage]).toEqual([Code.InvalidArgument, "month: must be a month as YYYY-MM, e.g. 2026-11"]);
  });
});
