import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { MonitorService, Periodicity, Region } from "@vigil/proto";
import { startAgent, type AgentProcess } from "../../agent/test/support/processes";
import { redisServerUrl } from "../../../test/redis";
import { eventually } from "../../../test/eventually";
import { consoleTestEnvironment, expectAccessible, heading, shows, signInWith, screenshotBoth, type ConsolePage } from "./support/console";
import { sessionClient, signedInPerson } from "./support/people";

/**
 * The monitors' overview (apps/console/src/pages/monitors) in headless Chromium against a real control plane,
 * real agents in two regions and an HTTP target on loopback that the test makes fail and recover: the page
 * follows the results without a reload, region by region.
 */
const env = consoleTestEnvironment("https://vigil.example.com");

describe("the console's monitors overview", () => {
  let target: Server;
  let healthy = true;
  let targetPort = 0;
  const agents: AgentProcess[] = [];

  beforeAll(async () => {
    target = createServer((_, res) => res.writeHead(healthy ? 200 : 503).end(healthy ? "ok" : "down"));
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    targetPort = (target.address() as AddressInfo).port;
    for (const region of ["hostA-ams", "hostB-fra"]) {
      agents.push(await startAgent({ REGION: region, REDIS_URL: redisServerUrl(), REDIS_PREFIX: env.api.redisPrefix }));
    }
  });
  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.stop()));
    await new Promise((resolve) => target.close(resolve));
  });

  async function signedIn(slug: string, role: "editor" | "viewer"): Promise<ConsolePage> {
    const person = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, role);
    const page = await env.open(`${env.api.baseUrl}/app/sign-in`);
    await signInWith(page, person.email, person.password);
    // The landing page.
    await shows(heading(page), "Monitors");
    return page;
  }

  const row = (page: ConsolePage, id: string) => page.locator(`tr[data-monitor="${id}"]`);
  const rowNames = (page: ConsolePage) => page.locator("tbody tr th a").allTextContents();

  it("shows each monitor's status per region and follows a failure and its recovery live; filters and sort by keyboard", async () => {
    const { slug, write } = await env.api.workspace();
    const client = env.api.client(write.key);
    const web = (await client.createHTTPMonitor({
      monitor: { name: "web", url: `http://127.0.0.1:${targetPort}/health`, periodicity: Periodicity.PERIODICITY_1H, active: true, retry: 0n, regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] },
    })).monitor!.id;
    const db = (await client.createTCPMonitor({
      monitor: { name: "db", uri: `127.0.0.1:${targetPort}`, periodicity: Periodicity.PERIODICITY_1H, active: false, regions: [Region.HOSTA_AMS] },
    })).monitor!.id;

    const page = await signedIn(slug, "editor");
    await shows(row(page, web));
    const calls: string[] = [];
    page.on("request", (request) => calls.push(new URL(request.url()).pathname));
    await shows(row(page, db), "(paused)");
    await shows(page.getByRole("link", { name: "New monitor" }));
    // Any reload would lose this.
    await page.evaluate("window.notReloaded = true");

    await client.triggerMonitor({ id: web });
    await shows(row(page, web).locator(".status", { hasText: "hostA-ams Up" }));
    await shows(row(page, web).locator(".status", { hasText: "hostB-fra Up" }));
    await shows(row(page, web).getByRole("img", { name: /Last 24 hours: \d+ checks, 0 failed/ }));

    healthy = false;
    await client.triggerMonitor({ id: web });
    await shows(row(page, web).locator(".status", { hasText: "hostA-ams Down" }));
    await shows(row(page, web).locator(".status", { hasText: "hostB-fra Down" }));
    await shows(row(page, web).locator(".status:not(:has(.status-region))", { hasText: "Down" }));
    await expectAccessible(page, "overview with a failing monitor");
    await screenshotBoth(page, "monitors-overview");

    healthy = true;
    await client.triggerMonitor({ id: web });
    await shows(row(page, web).locator(".status", { hasText: "hostA-ams Up" }));
    await shows(row(page, web).locator(".status", { hasText: "hostB-fra Up" }));
    // (A scheduled run may add checks to the triggered ones.)
    await shows(row(page, web).getByRole("img", { name: /Last 24 hours: \d+ checks, [1-9]\d* failed/ }));
    expect(await page.evaluate("window.notReloaded")).toBe(true);
    // Followed through the stream, not by asking again and again (but for a reload when the minute turned).
    expect(calls.filter((path) => path.endsWith("/ListMonitorOverviews")).length).toBeLessThanOrEqual(2);

    // Filters and sort with the keyboard alone, kept in the URL.
    await page.getByLabel("Kind").focus();
    await eventually(async () => {
      await page.keyboard.press("ArrowDown");
      expect(new URL(page.url()).searchParams.get("kind")).toBe("tcp");
    });
    expect(await rowNames(page)).toEqual(["db"]);
    await page.getByLabel("Kind").selectOption("");
    await page.getByLabel("Name or target").focus();
    await page.keyboard.type("we");
    await eventually(async () => expect(await rowNames(page)).toEqual(["web"]));
    expect(new URL(page.url()).searchParams.get("q")).toBe("we");
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Backspace");
    await eventually(async () => expect(await rowNames(page)).toEqual(["db", "web"]));
    await page.getByLabel("Sort by").focus();
    await eventually(async () => {
      await page.keyboard.press("ArrowDown");
      expect(new URL(page.url()).searchParams.get("sort")).toBe("status");
    });
    // Paused and never checked: unknown, after what is down (none now) and before what is up.
    expect(await rowNames(page)).toEqual(["db", "web"]);
    await page.getByLabel("Status").selectOption("up");
    await eventually(async () => expect(await rowNames(page)).toEqual(["web"]));
    await page.getByLabel("Region").selectOption("hostB-fra");

    // A filtered view is shared by its address.
    await page.goto(page.url());
    await shows(row(page, web));
    expect(await rowNames(page)).toEqual(["web"]);
    expect(await page.getByLabel("Status").inputValue()).toBe("up");
    expect(await page.getByLabel("Region").inputValue()).toBe("hostB-fra");
  });

  it("says when live updates are interrupted, and follows the results again once the stream is back", async () => {
    const { slug, write } = await env.api.workspace();
    const client = env.api.client(write.key);
    const web = (await client.createHTTPMonitor({
      monitor: { name: "web", url: `http://127.0.0.1:${targetPort}/health`, periodicity: Periodicity.PERIODICITY_1H, retry: 0n, regions: [Region.HOSTA_AMS] },
    })).monitor!.id;
    const person = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, "viewer");
    const page = await env.open(`${env.api.baseUrl}/app/sign-in`);
    // The stream refused at the network, as a proxy that drops it would.
    await page.route("**/WatchMonitorOverviews", (route) => route.abort());
    await signInWith(page, person.email, person.password);
    await shows(row(page, web));
    await shows(page.getByRole("status"), "live updates interrupted, reconnecting");
    await page.unroute("**/WatchMonitorOverviews");
    await eventually(async () => expect(await page.getByRole("status").filter({ hasText: "1 monitor" }).textContent()).not.toContain("interrupted"), 40_000);
    healthy = true;
    await client.triggerMonitor({ id: web });
    await shows(row(page, web).locator(".status", { hasText: "hostA-ams Up" }));
  });

  it("shows a viewer no 'New monitor', and the API refuses the viewer a new monitor", async () => {
    const { slug } = await env.api.workspace();
    const page = await signedIn(slug, "viewer");
    await shows(page.getByRole("status").filter({ hasText: "0 monitors" }));
    expect(await page.getByRole("link", { name: "New monitor" }).count()).toBe(0);
    await expectAccessible(page, "overview of a viewer");
    const viewer = await signedInPerson(env.api.db.prisma, env.api.baseUrl, slug, "viewer");
    const refused = await sessionClient(MonitorService, env.api.baseUrl, viewer.token, { workspace: slug })
      .createHTTPMonitor({ monitor: { name: "x", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1H } })
      .catch((e: unknown) => ConnectError.from(e));
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.PermissionDenied);
  });
});
