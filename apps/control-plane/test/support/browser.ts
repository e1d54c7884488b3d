import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";

/** Chromium from Debian's package (scripts/setup.sh installs it); Playwright cannot download browsers here. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** A headless Chromium, started as docs/notes on this machine kind say it must be. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** A folder under test-artifacts/ (ignored by git) for screenshots, created when missing. */
export function artifactsDir(name: string): string {
  const dir = path.resolve(__dirname, "../../../../test-artifacts", name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
