import path from "node:path";
import type { Browser } from "playwright-core";
import { latencyBucket } from "@vigil/domain";
import { Periodicity } from "@vigil/proto";
import { startTestApi, type TestApi } from "./support/api";
import { PHONE, artifactsDir, launchBrowser, openPage, scrollWidth } from "./support/browser";
import { seedDay, statusPageFixtures, utcDay } from "./support/status-pages";


describe("a public status page in a browser", () => {
  let api: TestApi;
  let browser: Browser;
  let slug: string;
  const screenshots = artifactsDir("status-pages");

  beforeAll(async () => {
    api = await startTestApi("pglite");
    browser = await launchBrowser();
    const keys = await api.workspace();
    const workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
    const { monitor } = await api.client(keys.write.key).createHTTPMonitor({
      monitor: { name: "Public API", url: "https://api.example.com/health", periodicity: Periodicity.PERIODICITY_1M, public: true },
    });
    const fixtures = statusPageFixtures(api.db.prisma, workspaceId);
    const page = await fixtures.page({
      title: "Acme Corporation Worldwide Services",
      description: "The state of every service Acme runs, checked from several regions every minute.",
      homepageUrl: "https://acme.example/",
      contactUrl: "https://acme.example/contact",
    });
    slug = page.slug;
    const group = await fixtures.group(page.id, "Backend services with a rather long group name");
    await fixtures.component(page.id, { monitorId: monitor!.id, position: 1, description: "REST and GraphQL endpoints" });
    await fixtures.component(page.id, { name: "Database cluster in the primary region", groupId: group.id, position: 2 });
    await fixtures.component(page.id, { name: "Website", position: 3 });
    const now = new Date();
    for (let day = 0; day < 60; day++) {
      await seedDay(api.db.prisma, monitor!.id, utcDay(now, day), day === 3 ? { successful: 900, failed: 100 } : day === 7 ? { successful: 995, failed: 5 } : { successful: 1440 });
    }
    await api.db.prisma.allRegionDailyLatencyBucket.create({ data: { monitorId: monitor!.id, day: utcDay(now, 3), bucket: latencyBucket(120), count: 900 } });
    await api.db.prisma.incident.create({
      data: { workspaceId, monitorId: monitor!.id, severity: "error", startedAt: new Date(now.getTime() - 86_400_000), resolvedAt: new Date(now.getTime() - 82_800_000), regions: ["hostA-ams"] },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const open = async (colorScheme: "light" | "dark") => {
    const opened = await openPage(browser, `${api.baseUrl}/status/${slug}`, { colorScheme });
    expect(opened.status).toBe(200);
    return opened;
  };

  it.each(["light", "dark"] as const)("renders components and 90-day bars in %s at 390 px without sideways scrolling", async (scheme) => {
    const { page, errors, close } = await open(scheme);
    try {
      expect(await page.locator("main").count()).toBe(1);
      expect(await page.locator("li.component").count()).toBe(3);
      expect(await page.locator("ul.bar").count()).toBe(1);
      expect(await page.locator("ul.bar > li.day").count()).toBe(90);
      expect(await page.locator(".banner h2").innerText()).toContain("All Systems Operational");
      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
      expect((await page.locator("ul.bar").boundingBox())!.width).toBeGreaterThan(200);
      await page.screenshot({ path: path.join(screenshots, `page-${scheme}-390.png`), fullPage: true });
      // The page's own style and script run under its Content Security Policy, and nothing else was tried.
      expect(errors).toEqual([]);
      expect(await page.evaluate<string>("getComputedStyle(document.body).fontFamily")).not.toMatch(/^"?Times/);
    } finally {
      await close();
    }
  });

  it("follows the colour scheme down to the body's own background", async () => {
    const background = async (scheme: "light" | "dark") => {
      const { page, close } = await open(scheme);
      try {
        return await page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
      } finally {
        await close();
      }
    };
    const [light, dark] = [await background("light"), await background("dark")];
    expect(light).not.toBe(dark);
    expect(light).not.toBe("rgba(0, 0, 0, 0)");
  });

  it("shows a day's figures when a bar day has keyboard focus", async () => {
    const { page, close } = await open("light");
    try {
      const day = page.locator("ul.bar > li.day").nth(86); // three days ago: the outage
      const tip = day.locator(".tip");
      const hiddenHeight = (await tip.boundingBox())!.height;
      expect(hiddenHeight).toBeLessThanOrEqual(1);
      // Reach it by keyboard: Tab moves focus along the page's focusable elements.
      await page.locator("ul.bar > li.day").nth(85).focus();
      await page.keyboard.press("Tab");
      // Runs in the browser; without the DOM library in the workspace's types, the element is typed by what is read of it.
      expect(await day.evaluate((el) => el === (el as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement)).toBe(true);
      const box = (await tip.boundingBox())!;
      expect(box.height).toBeGreaterThan(10);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      const text = await tip.innerText();
      expect(text).toContain("Outage");
      expect(text).toContain("1,000 checks");
      expect(text).toContain("100 failed");
      expect(text).toContain("90.00% uptime");
      expect(text).toMatch(/median response \d+ ms/);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await page.screenshot({ path: path.join(screenshots, "day-focused-390.png"), fullPage: false, clip: { x: 0, y: 0, width: PHONE.width, height: 844 } });
    } finally {
      await close();
    }
  });
});
