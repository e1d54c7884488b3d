import { MonitorService, Periodicity } from "@vigil/proto";
import { storeResults } from "../src/results/store";
import { STATUS_RULES } from "./support/api";
import { consoleTestEnvironment, expectAccessible, heading, screenshotBoth, shows, type ConsolePage } from "./support/console";
import { sessionClient } from "./support/people";
import { checkResult } from "./support/results";

/**
 * The console's objectives: the "Objectives (SLO)" group of the monitor form and the SLO panel of the monitor page, in
 * headless Chromium against a real control plane.
 */
const env = consoleTestEnvironment("https://vigil.example.com");

async function signedIn() {
  const { page, person, slug } = await env.signedInAs("editor");
  return { page, client: sessionClient(MonitorService, env.api.baseUrl, person.token, { workspace: slug }) };
}

const label = (page: ConsolePage, text: string) => page.getByLabel(text, { exact: true });

describe("the console's SLOs", () => {
  it("creates a monitor with objectives after showing the rule it broke", async () => {
    const { page, client } = await signedIn();
    await page.goto(`${env.api.baseUrl}/app/monitors/new?kind=tcp`);
    await shows(page.getByRole("group", { name: "Objectives (SLO)" }));
    expect(await label(page, "Availability objective (%)").inputValue()).toBe("0");
    await label(page, "Name").fill("Database");
    await label(page, "Host and port").fill("db.example.com:5432");
    await label(page, "Check every").selectOption("1m");
    await label(page, "Availability objective (%)").fill("100");
    await label(page, "Latency objective (ms)").fill("500");
    await page.getByRole("button", { name: "Create TCP monitor" }).click();
    await shows(page.getByText("Availability objective (%): must be 0 (no objective) or a percent from 50 to 99.999 with at most 3 decimals"));
    await shows(page.getByText("Latency objective (% of checks): must be set (not 0) when latencyObjectiveMs is"));
    expect((await client.listMonitors({})).totalSize).toBe(0);

    await label(page, "Availability objective (%)").fill("99.9");
    await label(page, "Latency objective (% of checks)").fill("95");
    await page.getByRole("button", { name: "Create TCP monitor" }).click();
    await page.waitForURL((url) => /^\/app\/monitors\/(?!new$)[^/]+$/.test(url.pathname));
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect((await client.getMonitor({ id })).monitor!.config.value).toMatchObject({ availabilityObjective: 99.9, latencyObjectiveMs: 500n, latencyObjectivePercent: 95 });
  });

  it("shows the figures, the budget left and the burn rates on the monitor page, readable at phone width", async () => {
    const { page, client } = await signedIn();
    const { monitor } = await client.createTCPMonitor({
      monitor: { name: "Shop", uri: "shop.example.com:443", periodicity: Periodicity.PERIODICITY_1M, availabilityObjective: 99, latencyObjectiveMs: 500n, latencyObjectivePercent: 90 },
    });
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const results = Array.from({ length: 98 }, (_, i) => checkResult(monitor!.id, "hostA-ams", at(2 * 1440 + i), "success"));
    results.push(checkResult(monitor!.id, "hostA-ams", at(30), "error"), checkResult(monitor!.id, "hostA-ams", at(20), "error"));
    await storeResults(env.api.db.prisma, results, STATUS_RULES);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${env.api.baseUrl}/app/monitors/${monitor!.id}`);
    await shows(page.getByRole("heading", { name: "Objectives" }));
    const table = page.getByRole("region", { name: "Service level objectives over the last 30 days (UTC)" });
    const availability = table.getByRole("row", { name: /^Availability/ });
    await shows(availability, "98.000 %");
    // 2 failures in 100 checks spend twice the 1 % budget; both fell in the last hour, its only checks: 100 times the rate.
    await shows(page.getByTestId("slo-budget-availability"), "-100.0 % (spent)");
    await shows(availability, "100.00×");
    await shows(table.getByRole("row", { name: /^Latency/ }), "90 % of answered checks ≤ 500 ms");
    await expectAccessible(page, "monitor page with objectives");
    await screenshotBoth(page, "monitor-slo");

    const { monitor: bare } = await client.createTCPMonitor({ monitor: { name: "Bare", uri: "bare.example.com:443", periodicity: Periodicity.PERIODICITY_1M } });
    await page.goto(`${env.api.baseUrl}/app/monitors/${bare!.id}`);
    await shows(page.getByRole("heading", { name: "Regions" }));
    expect(await page.getByRole("heading", { name: "Objectives" }).count()).toBe(0);
  });

  it("shows a printable monthly report, the last whole month by default, and another month chosen", async () => {
    const { page, client } = await signedIn();
    const { monitor } = await client.createTCPMonitor({ monitor: { name: "Billing", uri: "billing.example.com:443", periodicity: Periodicity.PERIODICITY_1M } });
    const now = new Date();
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const month = last.toISOString().slice(0, 7);
    const at = (minute: number) => new Date(last.getTime() + 2 * 86_400_000 + minute * 60_000).toISOString();
    const results = Array.from({ length: 3 }, (_, i) => checkResult(monitor!.id, "hostA-ams", at(i), "success"));
    results.push(checkResult(monitor!.id, "hostB-fra", at(5), "error"));
    await storeResults(env.api.db.prisma, results, STATUS_RULES);

    await page.goto(`${env.api.baseUrl}/app/monitors/${monitor!.id}`);
    await page.getByRole("link", { name: "Monthly report" }).click();
    await shows(heading(page), `Billing: report for ${month}`);
    const table = page.getByRole("region", { name: `Availability and latency percentiles for ${month}` });
    await shows(table.getByRole("row", { name: /^All regions/ }), "75.000 %");
    await shows(table.getByRole("row", { name: /hostB/ }), "0.000 %");
    await expectAccessible(page, "monthly report");
    // Printed, the console's navigation and the controls are left out.
    await page.emulateMedia({ media: "print" });
    expect(await page.getByRole("navigation", { name: "Pages" }).isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "Print" }).isVisible()).toBe(false);
    await page.emulateMedia({ media: "screen" });
    await screenshotBoth(page, "monitor-report");

    await page.getByLabel("Month").fill("2025-02");
    await shows(heading(page), "Billing: report for 2025-02");
    await shows(page.getByText("No incident this month."));
  });

  it("shows a status page's printable monthly report, each monitor component linking to its monitor's", async () => {
    const { ws, page } = await env.signedInAt("editor", "Status pages");
    const monitors = env.api.client(ws.write.key);
    const pages = env.api.statusPageClient(ws.write.key);
    const { monitor } = await monitors.createTCPMonitor({ monitor: { name: "Queue", uri: "queue.example.com:5672", periodicity: Periodicity.PERIODICITY_1M } });
    const pageId = (await pages.createStatusPage({ statusPage: { title: "Acme", slug: `report-${ws.slug}` } })).statusPage!.id;
    await pages.createStatusPageComponent({ component: { pageId, type: "monitor", monitorId: monitor!.id, name: "Messaging" } });
    const now = new Date();
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const month = last.toISOString().slice(0, 7);
    const at = (minute: number) => new Date(last.getTime() + 3 * 86_400_000 + minute * 60_000).toISOString();
    await storeResults(env.api.db.prisma, [checkResult(monitor!.id, "hostA-ams", at(0), "success"), checkResult(monitor!.id, "hostA-ams", at(1), "success")], STATUS_RULES);

    await page.goto(`${env.api.baseUrl}/app/status-pages/${pageId}`);
    await page.getByRole("link", { name: "Monthly report" }).click();
    await shows(heading(page), `Acme: report for ${month}`);
    const row = page.getByRole("region", { name: `Components in ${month}` }).getByRole("row", { name: /^Messaging/ });
    await shows(row, "100.000 %");
    await expectAccessible(page, "status page monthly report");
    await row.getByRole("link", { name: "Messaging" }).click();
    await shows(heading(page), `Queue: report for ${month}`);
  });
});
