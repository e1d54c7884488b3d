import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { STATUS_RULES } from "../../control-plane/test/support/api.js";
import { checkResult } from "../../control-plane/test/support/results.js";
import { storeResults } from "../../control-plane/src/results/store.js";
import { vigil } from "./support/cli.js";
import { cliWorkspace } from "./support/workspace.js";

/** SLOs through the built CLI: the objective flags, `monitors slo`, and the objectives in vigil.yaml. */
describe("vigil: monitor SLOs", () => {
  const cli = cliWorkspace("slo");
  const { ok, okJson } = cli;
  const objectives = ["--availability-objective", "99.5", "--latency-objective-ms", "500", "--latency-objective-percent", "90"];

  it("create and update take the objective flags for every kind that stores results", async () => {
    const http = await okJson(["monitors", "create", "http", "--name", "web", "--url", "https://example.com", "--periodicity", "1m", ...objectives]);
    const tcp = await okJson(["monitors", "create", "tcp", "--name", "db", "--uri", "db.example.com:5432", "--periodicity", "1m", ...objectives]);
    const dns = await okJson(["monitors", "create", "dns", "--name", "ns", "--uri", "example.com", "--periodicity", "1m", ...objectives]);
    const grpc = await okJson(["monitors", "create", "grpc", "--name", "api", "--uri", "api.example.com:443", "--periodicity", "1m", ...objectives]);
    for (const { monitor } of [http, tcp, dns, grpc]) expect(monitor).toMatchObject({ availabilityObjective: 99.5, latencyObjectiveMs: "500", latencyObjectivePercent: 90 });
    const updated = await okJson(["monitors", "update", tcp.monitor.id, "--availability-objective", "99.95"]);
    expect(updated.monitor).toMatchObject({ availabilityObjective: 99.95, latencyObjectiveMs: "500" });
    const refused = await vigil(["monitors", "update", tcp.monitor.id, "--latency-objective-ms", "0"], cli.env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("monitor.latencyObjectiveMs: must be set (not 0) when latencyObjectivePercent is");
    const notANumber = await vigil(["monitors", "update", tcp.monitor.id, "--availability-objective", "high"], cli.env());
    expect(notANumber.code).not.toBe(0);
    expect(notANumber.stderr).toContain("must be a decimal number");
  });

  it("monitors slo shows the figure, the budget left and the burn rates, as a table and as JSON", async () => {
    const { monitor } = await okJson(["monitors", "create", "tcp", "--name", "slo", "--uri", "db.example.com:5432", "--periodicity", "1m", "--availability-objective", "99"]);
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const results = Array.from({ length: 99 }, (_, i) => checkResult(monitor.id, "hostA-ams", at(2 * 1440 + i), "success"));
    results.push(checkResult(monitor.id, "hostA-ams", at(30), "error"));
    await storeResults(cli.api.db.prisma, results, STATUS_RULES);

    const table = (await ok(["monitors", "slo", monitor.id])).stdout;
    expect(table).toMatch(/^OBJECTIVE\s+TARGET\s+LAST 30D\s+GOOD\/CHECKS\s+BUDGET LEFT\s+BURN 1H\s+BURN 6H$/m);
    // 1 failure in 100 checks spends exactly the 1 % budget; the hour's one check failed: 100x.
    expect(table).toMatch(/^availability\s+99%\s+99\.000%\s+99\/100\s+0\.0%\s+100\.00x\s+100\.00x$/m);
    const json = await okJson(["monitors", "slo", monitor.id]);
    expect(json).toMatchObject({ id: monitor.id, windowDays: "30", availability: { objective: 99, total: "100", good: "99", actual: 99, burnRate1h: 100 } });
    expect(json.latency).toBeUndefined();

    const none = await okJson(["monitors", "create", "tcp", "--name", "none", "--uri", "db.example.com:5432", "--periodicity", "1m"]);
    expect((await ok(["monitors", "slo", none.monitor.id])).stdout).toContain("no objectives");
  });

  it("vigil.yaml applies the objectives, plans no change after, and exports them", async () => {
    const file = join(cli.dir, "vigil.yaml");
    const text = (objective: number) => `
project: slo
monitors:
  web:
    type: http
    name: Web
    url: https://slo.example.com
    periodicity: 1m
    availabilityObjective: ${objective}
    latencyObjectiveMs: 300
    latencyObjectivePercent: 99
  db:
    type: tcp
    name: Db
    uri: db.slo.example.com:5432
    periodicity: 1m
`;
    await writeFile(file, text(99.9));
    await ok(["apply", "-f", file]);
    const { httpMonitors } = await cli.api.client(cli.ws.write.key).listMonitors({ limit: 100 });
    expect(httpMonitors.find((m) => m.externalId === "slo/web")).toMatchObject({ availabilityObjective: 99.9, latencyObjectiveMs: 300n, latencyObjectivePercent: 99 });
    expect((await vigil(["plan", "-f", file, "--detailed-exitcode"], cli.env())).code).toBe(0);
    await writeFile(file, text(99.95));
    const plan = await vigil(["plan", "-f", file, "--detailed-exitcode"], cli.env());
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/availabilityObjective: 99.9 → 99.95/);
    await ok(["apply", "-f", file]);
    const exported = parse((await ok(["export", "--project", "slo"])).stdout);
    expect(exported.monitors.web).toMatchObject({ availabilityObjective: 99.95, latencyObjectiveMs: 300, latencyObjectivePercent: 99 });
    expect(exported.monitors.db).not.toHaveProperty("availabilityObjective");
  });

  it("monitors report gives a month as a table, as JSON and as CSV", async () => {
    const { monitor } = await okJson(["monitors", "create", "http", "--name", "shop", "--url", "https://example.com", "--periodicity", "1m"]);
    const now = new Date();
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const month = last.toISOString().slice(0, 7);
    const at = (day: number, minute: number) => new Date(last.getTime() + (day - 1) * 86_400_000 + minute * 60_000).toISOString();
    const results = [
      ...Array.from({ length: 3 }, (_, i) => checkResult(monitor.id, "hostA-ams", at(2, i), "success", { latencyMs: 100 })),
      checkResult(monitor.id, "hostA-ams", at(2, 10), "error"),
      ...Array.from({ length: 2 }, (_, i) => checkResult(monitor.id, "hostB-fra", at(5, i), "success", { latencyMs: 200 })),
    ];
    await storeResults(cli.api.db.prisma, results, STATUS_RULES);

    const json = await okJson(["monitors", "report", monitor.id, "--month", month]);
    expect(json).toMatchObject({ id: monitor.id, name: "shop", month, overall: { successful: "5", failed: "1" } });
    expect(json.regions.map((r: { region: string; figures: { availability: number } }) => [r.region, r.figures.availability])).toEqual([
      ["REGION_HOSTA_AMS", 75],
      ["REGION_HOSTB_FRA", 100],
    ]);

    const [ms100, ms200] = ["(?:99|100|101)", "(?:198|199|200|201|202)"];
    const csv = (await ok(["monitors", "report", monitor.id, "--month", month, "--csv"])).stdout.trim().split(/\r?\n/);
    expect(csv).toEqual([
      "month,region,availability_percent,successful,degraded,failed,p50_ms,p90_ms,p95_ms,p99_ms,downtime_seconds,incidents",
      // Percentiles from the latency buckets: within 1 % (100 ms reads 99 or 100).
      expect.stringMatching(new RegExp(`^${month},all,83\\.333,5,0,1,${ms100},${ms200},${ms200},${ms200},\\d+,1$`)),
      expect.stringMatching(new RegExp(`^${month},hostA-ams,75\\.000,3,0,1,${ms100},${ms100},${ms100},${ms100},`)),
      expect.stringMatching(new RegExp(`^${month},hostB-fra,100\\.000,2,0,0,${ms200},${ms200},${ms200},${ms200},`)),
    ]);
    const table = (await ok(["monitors", "report", monitor.id, "--month", month])).stdout;
    expect(table).toContain(`shop (${monitor.id}), ${month}`);
    expect(table).toMatch(/^hostB-fra\s+100\.000\s+2\s+0\s+0(\s+(198|199|200|201|202)){4}$/m);

    const bad = await vigil(["monitors", "report", monitor.id, "--month", "2026-13", "--csv"], cli.env());
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("month: must be a month as YYYY-MM, e.g. 2026-11");
  });

  it("status-pages report gives a page's month as a table, JSON and CSV", async () => {
    const { monitor } = await okJson(["monitors", "create", "tcp", "--name", "db", "--uri", "db.example.com:5432", "--periodicity", "1m"]);
    const pages = cli.api.statusPageClient(cli.ws.write.key);
    const { statusPage } = await pages.createStatusPage({ statusPage: { title: "Acme", slug: "cli-report" } });
    const component = (await pages.createStatusPageComponent({ component: { pageId: statusPage!.id, type: "monitor", monitorId: monitor.id, name: "Database" } })).component!;
    const now = new Date();
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const month = last.toISOString().slice(0, 7);
    const at = (minute: number) => new Date(last.getTime() + 86_400_000 + minute * 60_000).toISOString();
    await storeResults(cli.api.db.prisma, [...[0, 1, 2].map((m) => checkResult(monitor.id, "hostA-ams", at(m), "success")), checkResult(monitor.id, "hostA-ams", at(3), "degraded")], STATUS_RULES);

    const json = await okJson(["status-pages", "report", statusPage!.id, "--month", month]);
    expect(json).toMatchObject({ name: "Acme", month, availability: 100, components: [{ componentId: component.id, name: "Database", successful: "3", degraded: "1" }] });
    const csv = (await ok(["status-pages", "report", statusPage!.id, "--month", month, "--csv"])).stdout.trim().split(/\r?\n/);
    expect(csv).toEqual([
      "month,component,name,availability_percent,successful,degraded,failed,downtime_seconds,incidents",
      // The degraded check opened a (degraded) incident: counted, but no downtime.
      `${month},page,Acme,100.000,3,1,0,0,1`,
      `${month},${component.id},Database,100.000,3,1,0,0,1`,
    ]);
    expect((await ok(["status-pages", "report", statusPage!.id, "--month", month])).stdout).toMatch(/^page\s+Acme\s+100\.000\s+3\s+1\s+0\s+0\s+1$/m);
  });

  it("vigil.yaml refuses half a latency objective, naming the entry's field", async () => {
    const file = join(cli.dir, "half.yaml");
    await writeFile(file, `
project: half
monitors:
  web:
    type: http
    name: Web
    url: https://slo.example.com
    periodicity: 1m
    latencyObjectiveMs: 300
`);
    const run = await vigil(["plan", "-f", file], cli.env());
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("latencyObjectivePercent");
    expect(run.stderr).toContain("must be set (not 0) when latencyObjectiveMs is");
  });
});
