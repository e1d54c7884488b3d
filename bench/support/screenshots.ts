import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { log } from "./run";

/** Where the README's pictures of the console live: taken by the benchmarks, on the data they measured. */
const IMAGES = resolve(__dirname, "../../docs/images");

/** The top `height` pixels of `page`, light and dark, into docs/images/<name>-light.png and -dark.png (unless BENCH_NO_DOC). */
export async function keepScreenshots(page: Page, name: string, height = 900): Promise<void> {
  if (process.env.BENCH_NO_DOC !== undefined) return log("BENCH_NO_DOC: docs/images left as they were");
  mkdirSync(IMAGES, { recursive: true });
  await page.setViewportSize({ width: 1280, height });
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    // The chart draws again for the scheme; give the frame its turn.
    await page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))");
    await page.screenshot({ path: join(IMAGES, `${name}-${colorScheme}.png`) });
  }
  log(`screenshots: docs/images/${name}-light.png, -dark.png`);
}
