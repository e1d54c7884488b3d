import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";

export { launchBrowser } from "@vigil/local-servers/chromium";

/** A folder under test-artifacts/ (ignored by git) for screenshots, created when missing. */
export function artifactsDir(name: string): string {
  const dir = path.resolve(__dirname, "../../../../test-artifacts", name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A phone's viewport: pages must read at this width without sideways scrolling. */
export const PHONE = { width: 390, height: 844 };

/** How wide the document is: wider than the viewport means sideways scrolling. */
export const scrollWidth = (page: Page) => page.evaluate<number>("document.documentElement.scrollWidth");

/**
 * A page at `url` in a context of its own (a phone's viewport unless
 * `options` say otherwise), with what it reported meanwhile: errors on its
 * console (a Content Security Policy violation shows up there), uncaught
 * errors, and dialogs (each dismissed).
 */
export async function openPage(browser: Browser, url: string, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ viewport: PHONE, ...options });
  const page = await context.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on("console", (message) => void (message.type() === "error" && errors.push(message.text())));
  page.on("pageerror", (error) => void errors.push(error.message));
  page.on("dialog", (dialog) => void (dialogs.push(dialog.message()), dialog.dismiss()));
  const response = await page.goto(url);
  return { page, status: response?.status(), errors, dialogs, close: () => context.close() };
}
