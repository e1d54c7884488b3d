// Its own module, behind no index: playwright-core takes ~28 MB of heap and half a second to load, and Jest loads a
// test file's modules anew for every file, so the many tests that start only Redis or PostgreSQL must not load it.
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
