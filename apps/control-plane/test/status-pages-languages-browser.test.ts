import path from "node:path";
import type { Browser } from "playwright-core";
import { Periodicity } from "@vigil/proto";
import { startTestApi, type TestApi } from "./support/api";
import { artifactsDir, launchBrowser, openPage } from "./support/browser";
import { seedDay, statusPageFixtures, utcDay } from "./support/status-pages";

/**
 * A visitor's browser chooses the page's language (Accept-Language from its
 * locale) and, through the page's script, shows times in its own zone.
 */
describe("a status page in the visitor's language and time zone", () => {
  let api: TestApi;
  let browser: Browser;
  let base: string;
  let startedAt: Date;
  const screenshots = artifactsDir("status-pages");

  beforeAll(async () => {
    api = await startTestApi("pglite");
    browser = await launchBrowser();
    const keys = await api.workspace();
    const workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
    const { monitor } = await api.client(keys.write.key).createTCPMonitor({ monitor: { name: "API", uri: "example.com:443", periodicity: Periodicity.PERIODICITY_5M } });
    const fixtures = statusPageFixtures(api.db.prisma, workspaceId);
    const page = await fixtures.page({ title: "Acme" });
    await fixtures.component(page.id, { monitorId: monitor!.id, name: "API" });
    for (let day = 0; day < 30; day++) await seedDay(api.db.prisma, monitor!.id, utcDay(new Date(), day), day === 2 ? { successful: 1400, failed: 40 } : { successful: 1440 });
    startedAt = new Date(Date.UTC(2026, 10, 28, 23, 30));
    await api.db.prisma.incident.create({ data: { workspaceId, monitorId: monitor!.id, severity: "error", startedAt, resolvedAt: null, regions: [] } });
    base = `${api.baseUrl}/status/${page.slug}`;
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  async function visit(options: { locale: string; timezoneId: string; javaScriptEnabled?: boolean }, shot: string) {
    const { page, status, errors, close } = await openPage(browser, base, options);
    expect(status).toBe(200);
    const seen = {
      lang: await page.locator("html").getAttribute("lang"),
      banner: await page.locator(".banner h2").innerText(),
      started: await page.locator("time").first().innerText(),
      note: await page.locator("#times-note").innerText(),
    };
    await page.screenshot({ path: path.join(screenshots, shot), fullPage: true });
    await close();
    expect(errors).toEqual([]);
    return seen;
  }

  const inZone = (lang: string, timeZone: string) => new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short", timeZone }).format(startedAt);

  it("reads German in Berlin: the words, and times in Berlin's zone", async () => {
    const seen = await visit({ locale: "de-DE", timezoneId: "Europe/Berlin" }, "language-de-berlin-390.png");
    expect(seen.lang).toBe("de");
    expect(seen.banner).toContain("Alle Systeme betriebsbereit");
    // 23:30 UTC on 28 November is 00:30 on the 29th in Berlin.
    expect(seen.started).toBe(inZone("de", "Europe/Berlin"));
    expect(seen.started).toContain("29.11.2026, 00:30");
    expect(seen.note).toBe("Zeiten in Ihrer Zeitzone (Europe/Berlin).");
  });

  it("reads Japanese in Tokyo", async () => {
    const seen = await visit({ locale: "ja-JP", timezoneId: "Asia/Tokyo" }, "language-ja-tokyo-390.png");
    expect(seen.lang).toBe("ja");
    expect(seen.banner).toContain("すべてのシステムが正常に稼働しています");
    expect(seen.started).toBe(inZone("ja", "Asia/Tokyo"));
    expect(seen.note).toBe("時刻はお使いのタイムゾーン (Asia/Tokyo) です。");
  });

  it("without its script, shows times in UTC and says so", async () => {
    const seen = await visit({ locale: "en-US", timezoneId: "America/New_York", javaScriptEnabled: false }, "language-en-no-script-390.png");
    expect(seen.lang).toBe("en");
    expect(seen.started).toBe(`${inZone("en", "UTC")} UTC`);
    expect(seen.note).toBe("Times are in UTC.");
  });
});
