import { chromium, type Browser } from "playwright-core";

/** Chromium from Debian's package (scripts/setup.sh installs it); Playwright cannot download browsers here. */
const CHROMIUM_PATH = "/usr/bin/chromium";

/** A headless Chromium, started as docs/notes on this machine kind say it must be. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
