import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { startTestApi, type TestApi } from "./support/api";
import { artifactsDir, launchBrowser } from "./support/browser";

const PHONE = { width: 390, height: 844 };
const MINUTE = 60_000;
const scrollWidth = (page: Page) => page.evaluate<number>("document.documentElement.scrollWidth");

/** A maintenance going on and one to come on a public page, in headless Chromium at a phone's width, light and dark. */
describe("a maintenance on a status page in a browser", () => {
  let api: TestApi;
  let browser: Browser;
  let base: string;
  const screenshots = artifactsDir("status-pages");

  beforeAll(async () => {
    api = await startTestApi("pglite");
    browser = await launchBrowser();
    const keys = await api.workspace();
    const pages = api.statusPageClient(keys.write.key);
    const slug = "maintenance-browser";
    const pageId = (await pages.createStatusPage({ statusPage: { title: "Acme", slug, description: "Acme's services" } })).statusPage!.id;
    const web = (await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "Website" } })).component!.id;
    const db = (await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "Database", order: 1 } })).component!.id;
    const windows = api.maintenanceClient(keys.write.key);
    const now = Date.now();
    const schedule = (title: string, start: number, minutes: number, componentId: string, message: string) =>
      windows.createMaintenanceWindow({
        maintenance: { title, message, startsAt: timestampFromDate(new Date(start)), endsAt: timestampFromDate(new Date(start + minutes * MINUTE)), pageComponentIds: [componentId] },
      });
    await schedule("Database upgrade to PostgreSQL 18", now - 15 * MINUTE, 60, db, "Writes pause for **a few seconds** twice.\n\n- Reads: working\n- Writes: short pauses <script>alert(1)</script>");
    await schedule("Website hosting move", now + 2 * 24 * 60 * MINUTE, 120, web, "The website moves to a new host.");
    base = `${api.baseUrl}/status/${slug}`;
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it.each(["light", "dark"] as const)("shows the maintenance going on, its component under maintenance, and the one to come, in %s at 390 px", async (scheme) => {
    const context = await browser.newContext({ viewport: PHONE, colorScheme: scheme });
    const page = await context.newPage();
    const errors: string[] = [];
    const dialogs: string[] = [];
    page.on("console", (message) => void (message.type() === "error" && errors.push(message.text())));
    page.on("pageerror", (error) => void errors.push(error.message));
    page.on("dialog", (dialog) => void (dialogs.push(dialog.message()), dialog.dismiss()));
    try {
      expect((await page.goto(base))?.status()).toBe(200);
      const maintenances = page.locator("li.maintenance");
      expect(await maintenances.locator("h3").allInnerTexts()).toEqual(["Database upgrade to PostgreSQL 18", "Website hosting move"]);
      expect(await maintenances.locator(".status").allInnerTexts()).toEqual(["⚙ In progress", "⚙ Scheduled"]);
      expect(await maintenances.first().locator(".markdown li").allInnerTexts()).toEqual(["Reads: working", "Writes: short pauses <script>alert(1)</script>"]);
      expect(await page.locator(".banner h2").innerText()).toContain("Service Under Maintenance");
      expect(await page.locator("li.component .status").allInnerTexts()).toEqual(["✓ Operational", "⚙ Under maintenance"]);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await page.screenshot({ path: path.join(screenshots, `maintenance-${scheme}-390.png`), fullPage: true });
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
