import path from "node:path";
import type { Browser } from "playwright-core";
import { Periodicity } from "@vigil/proto";
import { startTestApi, type TestApi } from "./support/api";
import { PHONE, artifactsDir, launchBrowser, openPage, scrollWidth } from "./support/browser";

describe("a status page incident in a browser", () => {
  let api: TestApi;
  let browser: Browser;
  let base: string;
  let incidentId: string;
  const screenshots = artifactsDir("status-pages");

  beforeAll(async () => {
    api = await startTestApi("pglite");
    browser = await launchBrowser();
    const keys = await api.workspace();
    const client = api.statusPageClient(keys.write.key);
    const { monitor } = await api.client(keys.write.key).createHTTPMonitor({
      monitor: { name: "Checkout API", url: "https://api.example.com/health", periodicity: Periodicity.PERIODICITY_1M },
    });
    const slug = "incident-browser";
    const pageId = (await client.createStatusPage({ statusPage: { title: "Acme", slug, description: "Acme's services" } })).statusPage!.id;
    const checkout = (await client.createStatusPageComponent({ component: { pageId, type: "monitor", monitorId: monitor!.id } })).component!.id;
    const web = (await client.createStatusPageComponent({ component: { pageId, type: "static", name: "Website", order: 1 } })).component!.id;
    const { incident } = await client.createStatusPageIncident({
      incident: {
        pageId,
        title: "Payments failing for some customers in Europe",
        status: "investigating",
        message: "We are investigating reports of **failed card payments**.",
        components: [
          { componentId: checkout, impact: "partial_outage" },
          { componentId: web, impact: "degraded_performance" },
        ],
      },
    });
    incidentId = incident!.id;
    await client.addStatusPageIncidentUpdate({
      incidentId,
      status: "identified",
      message: "A certificate of our payment provider expired.\n\n- Cards: failing\n- Invoices: working\n\nSee [the provider's status](https://status.example.com). <script>alert(1)</script>",
    });
    await client.addStatusPageIncidentUpdate({ incidentId, status: "monitoring", message: "The certificate was renewed; we are watching payments." });
    base = `${api.baseUrl}/status/${slug}`;
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const open = async (url: string, colorScheme: "light" | "dark") => {
    const opened = await openPage(browser, url, { colorScheme });
    expect(opened.status).toBe(200);
    return opened;
  };

  it.each(["light", "dark"] as const)("shows an open incident with its updates, newest first, on the page in %s at 390 px", async (scheme) => {
    const { page, errors, dialogs, close } = await open(base, scheme);
    try {
      const incident = page.locator("li.incident-open");
      expect(await incident.locator("h3").innerText()).toBe("Payments failing for some customers in Europe");
      expect(await incident.locator(".update-head strong").allInnerTexts()).toEqual(["Monitoring", "Identified", "Investigating"]);
      expect(await incident.locator(".markdown li").allInnerTexts()).toEqual(["Cards: failing", "Invoices: working"]);
      expect(await incident.locator(".markdown a").getAttribute("href")).toBe("https://status.example.com");
      expect(await page.locator(".banner h2").innerText()).toContain("Partial System Outage");
      expect(await page.locator("li.component .status").allInnerTexts()).toEqual(["✕ Partial outage", "! Degraded performance"]);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await page.screenshot({ path: path.join(screenshots, `incident-updates-${scheme}-390.png`), fullPage: true });
      // The Markdown's script stayed text: nothing ran, and the page's Content Security Policy saw nothing else tried.
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("has a page of its own that a visitor reaches from the incident's title", async () => {
    const { page, errors, close } = await open(base, "light");
    try {
      await page.locator("li.incident-open h3 a").click();
      await page.waitForURL(`${base}/incidents/${incidentId}`);
      expect(await page.locator("#incident-title").innerText()).toBe("Payments failing for some customers in Europe");
      expect(await page.locator(".affected li").allInnerTexts()).toEqual(["Checkout API: Partial outage", "Website: Degraded performance"]);
      expect(await page.locator(".update").count()).toBe(3);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await page.screenshot({ path: path.join(screenshots, "incident-page-light-390.png"), fullPage: true });
      await page.locator("a", { hasText: "Incident history" }).first().click();
      await page.waitForURL(`${base}/history`);
      expect(await page.locator(".month h3").count()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
