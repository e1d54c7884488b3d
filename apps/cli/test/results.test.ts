import { Periodicity, Region } from "@vigil/proto";
import { storeResults } from "../../control-plane/src/results/store.js";
import { STATUS_RULES, startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { checkResult, publishResults } from "../../control-plane/test/support/results.js";
import { startVigil, vigil } from "./support/cli.js";

const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
/** The trace id of the traceparent the newest check sent; the others sent none. */
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

/** `vigil monitors results`, `vigil monitors chart` and `vigil regions` against a real API server with stored results. */
describe("vigil result commands", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let id: string;

  beforeAll(async () => {
    api = await startTestApi("pglite");
    ws = await api.workspace();
    const { monitor } = await api.client(ws.write.key).createHTTPMonitor({
      monitor: { name: "m", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1H, regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] },
    });
    id = monitor!.id;
    await storeResults(
      api.db.prisma,
      [
        ...Array.from({ length: 30 }, (_, i) => checkResult(id, "hostA-ams", ago((i + 2) * MINUTE), "success", { latencyMs: 50 + 10 * i })),
        checkResult(id, "hostB-fra", ago(MINUTE), "error", { traceId: TRACE_ID }),
      ],
      STATUS_RULES,
    );
  });
  afterAll(() => api?.close());

  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME: "/nonexistent", SERVICE_API_URL: api.baseUrl, SERVICE_API_KEY: ws.read.key, ...extra });
  async function ok(args: string[], extra?: NodeJS.ProcessEnv): Promise<string> {
    const run = await vigil(args, env(extra));
    expect({ args, ...run }).toMatchObject({ code: 0, stderr: "" });
    return run.stdout;
  }

  it("monitors overview: each monitor's status per region, last latency, a 24-hour line and uptimes", async () => {
    const lines = (await ok(["monitors", "overview"])).split("\n");
    expect(lines[0]!.split(/\s{2,}/)).toEqual(["ID", "TYPE", "NAME", "STATUS", "REGIONS", "LATENCY", "LAST 24H (MEDIAN)", "UPTIME 24H", "UPTIME 7D"]);
    expect(lines[1]).toMatch(new RegExp(`^${id}\\s+http\\s+m\\s+error \\(paused\\)\\s+hostA-ams:active,hostB-fra:error\\s+80ms\\s+\\S*[▁-█]\\s+96\\.77%\\s+96\\.77%$`));
    const json = JSON.parse(await ok(["monitors", "overview", "-o", "json"]));
    expect(json).toMatchObject({ totalSize: 1, monitors: [{ id, kind: "http", status: "MONITOR_STATUS_ERROR" }] });
    expect(json.monitors[0].hours).toHaveLength(24);
    const badLimit = await vigil(["monitors", "overview", "--limit", "0"], env());
    expect([badLimit.code, badLimit.stderr]).toEqual([1, expect.stringContaining("limit: must be an integer from 1 to 100")]);
  });

  it("monitors overview --watch prints the page again as its monitors change, and Ctrl-C ends it", async () => {
    // A workspace of its own: the other tests count this one's results.
    const own = await api.workspace();
    const { monitor } = await api.client(own.write.key).createHTTPMonitor({ monitor: { name: "w", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1H, regions: [Region.HOSTA_AMS] } });
    const watching = startVigil(["monitors", "overview", "--watch"], env({ SERVICE_API_KEY: own.read.key }));
    const screens = () => watching.stdout().match(/^ID\s/gm)?.length ?? 0;
    while (screens() < 1) await new Promise((done) => setTimeout(done, 50));
    // A result stored by the control plane's consumer, as an agent sends it: the stream tells the CLI.
    await publishResults(api.redisPrefix, [checkResult(monitor!.id, "hostA-ams", new Date().toISOString(), "success", { latencyMs: 777 })]);
    while (!watching.stdout().includes("777ms")) await new Promise((done) => setTimeout(done, 50));
    watching.child.kill("SIGINT");
    const run = await watching.done;
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(screens()).toBeGreaterThanOrEqual(2);
  });

  it("results: newest first, filtered by region, paged with the cursor it prints", async () => {
    const lines = (await ok(["monitors", "results", id, "--limit", "2"])).split("\n");
    expect(lines[0]!.split(/\s{2,}/)).toEqual(["TIME", "REGION", "STATUS", "CODE", "LATENCY", "TRACE", "FAILURE"]);
    expect(lines[1]).toMatch(new RegExp(`^\\S+\\s+hostB-fra\\s+error\\s+503\\s+80ms\\s+${TRACE_ID}\\s+http_status: HTTP 503$`));
    expect(lines[2]).toMatch(/\s+hostA-ams\s+active\s+200\s+50ms$/);
    const cursor = lines.find((line) => line.startsWith("more: --cursor "))!.slice("more: --cursor ".length);
    expect((await ok(["monitors", "results", id, "--limit", "1", "--cursor", cursor])).split("\n")[1]).toMatch(/\s60ms$/);

    const json = JSON.parse(await ok(["monitors", "results", id, "--region", "hostB-fra", "-o", "json"]));
    expect(json.results).toHaveLength(1);
    expect(json.results[0]).toMatchObject({ region: "REGION_HOSTB_FRA", status: "MONITOR_STATUS_ERROR", statusCode: 503, failureReason: "http_status", traceId: TRACE_ID });
    expect(json.nextCursor).toBeUndefined();

    const tooMany = await vigil(["monitors", "results", id, "--limit", "101"], env());
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain("limit: must be an integer from 1 to 100");
  });

  it("chart: draws the percentiles of a range as lines, without colour when piped", async () => {
    const chart = await ok(["monitors", "chart", id, "--range", "1h"]);
    expect(chart).not.toContain("\x1b");
    // The y axis spans the latencies stored (50 to 340 ms) and the lines are drawn with box-drawing characters.
    expect(chart).toMatch(/^\s+340ms [┤┼]/m);
    expect(chart).toMatch(/^\s+0ms [┤┼]/m);
    expect(chart).toMatch(/[╭╮╰╯─│]/);
    expect(chart).toContain("31 checks, 1 failed");
    expect(chart).toMatch(/1 min a column/);
    expect(await ok(["monitors", "chart", id, "--range", "1h", "--region", "hostB-fra"])).toContain("1 checks, 1 failed");

    const json = JSON.parse(await ok(["monitors", "chart", id, "--range", "7d", "-o", "json"]));
    expect(json).toMatchObject({ id, timeRange: "TIME_RANGE_7D", bucketSeconds: "3600" });
    expect(json.buckets).toHaveLength(169);

    const coloured = await ok(["monitors", "chart", id, "--range", "1h"], { FORCE_COLOR: "1" });
    expect(coloured).toContain("\x1b[");
    const badRange = await vigil(["monitors", "chart", id, "--range", "2h"], env());
    expect(badRange.code).toBe(2);
    expect(badRange.stderr).toContain("must be one of 1d, 7d, 14d, 1h");
    // Summaries read the hourly aggregates only: the last hour is a chart's range, not a summary's.
    const hourSummary = await vigil(["monitors", "summary", id, "--range", "1h"], env());
    expect([hourSummary.code, hourSummary.stderr]).toEqual([2, expect.stringContaining("must be one of 1d, 7d, 14d\n")]);
  });

  it("regions: every region with its agents, checks per minute and queue", async () => {
    // Checks per minute count the last 5 minutes: 3 of the results in hostA-ams and 1 in hostB-fra.
    const lines = (await ok(["regions"])).split("\n");
    expect(lines[0]!.split(/\s{2,}/)).toEqual(["REGION", "AGENTS", "LAST SEEN", "CHECKS/MIN", "QUEUE", "OLDEST"]);
    expect(lines.find((line) => line.startsWith("hostA-ams "))).toMatch(/^hostA-ams\s+0\s+never\s+0\.6\s+\d+\s+\d+s$/);
    const json = JSON.parse(await ok(["regions", "-o", "json"]));
    expect(json.regions.find((r: { region: string }) => r.region === "REGION_HOSTB_FRA")).toMatchObject({ checksPerMinute: 0.2 });
  });
});
