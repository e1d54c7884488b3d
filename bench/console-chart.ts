// Console chart benchmark (issue 38): how long the monitor page's latency chart (uPlot, p50 and p95 per
// region) takes to draw, read from the performance measure the chart code sets around its first draw
// (apps/console/src/pages/monitors/chart-timing.ts), for a monitor with 14 days of results in 5 regions
// (written to the database through the ingest's own storeResults, which also fills the aggregates the
// long ranges read). Chromium opens /app/monitors/<id>?range=<range> afresh for each load; the goal is
// the 14-day chart within 200 ms.
// Usage: pnpm bench:console-chart, with optional BENCH_LOADS (10 per range), BENCH_NO_DOC=1 (print only).
// Needs the built control plane and console (pnpm exec turbo run build) and the machine's PostgreSQL and Redis.
import { applyMigrations, openDatabase, type DatabaseTarget } from "@vigil/db";
import { SESSION_COOKIE, TIMESERIES_RESOLUTIONS, TIME_RANGES, type RegionId, type TimeRange } from "@vigil/domain";
import type { ResultMessage } from "@vigil/queue";
import { addPerson, sessionOf } from "./support/console-person";
import { storeResults } from "@vigil/control-plane/results/store";
import { launchBrowser } from "@vigil/local-servers/chromium";
import { CHART_DRAW_MEASURE } from "@vigil/console/pages/monitors/chart-timing";
import { seedActiveMonitors } from "./seed";
import { assertBuilt } from "./support/built";
import { benchDatabase } from "./support/database";
import { writeDocsBlock } from "./support/doc";
import { keepScreenshots } from "./support/screenshots";
import { runOn } from "./support/machine";
import { checkResult } from "./support/results";
import { log, runBenchmark } from "./support/run";
import { startServer, stopServer } from "./support/server-process";
import { commandLine, numberSetting } from "./support/settings";
import { fmt, percentile, sortedCopy } from "./support/stats";

const LOADS = numberSetting("LOADS", 10);
const REGIONS: RegionId[] = ["hostA-ams", "hostA-iad", "hostA-sin", "hostB-fra", "hostC-us-west2"];
const DAYS = 14;
const PERIOD_MS = 5 * 60_000;
const STORE_BATCH = 1_000;
const RANGES: TimeRange[] = ["14d", "7d", "1d", "1h"];
const GOAL_MS = 200;
const DATABASE = "vigil_bench_console_chart";
const PERSON = { email: "bench-chart@example.com", name: "Bench Viewer", password: "plum-harbour-lantern-42" };

/** 14 days of 5-minute checks per region: latency with a daily wave and the odd slow or failed check. */
function history(monitorId: string, now: number): ResultMessage[] {
  const results: ResultMessage[] = [];
  const first = Math.floor((now - DAYS * 86_400_000) / PERIOD_MS);
  for (const [r, region] of REGIONS.entries()) {
    for (let slot = first; slot * PERIOD_MS < now; slot++) {
      const status = slot % 997 === r ? "error" : slot % 211 === r ? "degraded" : "success";
      const wave = Math.sin((2 * Math.PI * (slot * PERIOD_MS)) / 86_400_000);
      const latencyMs = status === "success" ? Math.round(60 + 30 * r + 25 * wave + (slot % 7) * 4) : status === "degraded" ? 4_000 : 80;
      results.push(checkResult({ id: `${region}:bench-chart-${slot}`, monitorId, region, startedAt: new Date(slot * PERIOD_MS), status, latencyMs }));
    }
  }
  return results;
}

async function seed(target: DatabaseTarget): Promise<{ monitorId: string; stored: number }> {
  const db = await openDatabase(target);
  try {
    await applyMigrations(db);
    const [monitorId] = await seedActiveMonitors(db.prisma, 1, { periodicity: "5m", regions: REGIONS });
    await addPerson(db.prisma, PERSON);
    const results = history(monitorId!, Date.now());
    const rules = { defaultRegions: REGIONS, quorum: "half" as const };
    for (let from = 0; from < results.length; from += STORE_BATCH) await storeResults(db.prisma, results.slice(from, from + STORE_BATCH), rules);
    await db.prisma.$executeRawUnsafe("ANALYZE");
    return { monitorId: monitorId!, stored: results.length };
  } finally {
    await db.close();
  }
}

interface Row {
  range: TimeRange;
  draws: number[];
}

/** Opens the page `LOADS` times per range in fresh pages and reads the chart's draw measure of each. */
async function measure(baseUrl: string, monitorId: string, token: string): Promise<Row[]> {
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: SESSION_COOKIE, value: token, url: baseUrl }]);
    const rows: Row[] = [];
    for (const range of RANGES) {
      const row: Row = { range, draws: [] };
      // One load first, not counted: the server's and the browser's caches warm up.
      for (let load = -1; load < LOADS; load++) {
        const page = await context.newPage();
        await page.goto(`${baseUrl}/app/monitors/${monitorId}?range=${range}`);
        await page.waitForFunction((name) => performance.getEntriesByName(name, "measure").length > 0, CHART_DRAW_MEASURE, { timeout: 30_000 });
        const duration = await page.evaluate((name) => performance.getEntriesByName(name, "measure")[0]!.duration, CHART_DRAW_MEASURE);
        // The chart drawn is the one meant: every region in its table.
        const regions = await page.getByRole("region", { name: "Latency per region over the range" }).getByRole("rowheader").count();
        if (regions !== REGIONS.length) throw new Error(`the chart's table has ${regions} regions, expected ${REGIONS.length}`);
        if (load >= 0) row.draws.push(duration);
        await page.close();
      }
      log(`${range}: ${row.draws.map((d) => d.toFixed(1)).join(", ")} ms`);
      rows.push(row);
    }
    const page = await context.newPage();
    await page.goto(`${baseUrl}/app/monitors/${monitorId}?range=7d`);
    await page.waitForFunction((name) => performance.getEntriesByName(name, "measure").length > 0, CHART_DRAW_MEASURE, { timeout: 30_000 });
    // Down to the end of the chart.
    await keepScreenshots(page, "console-monitor", 1_300);
    return rows;
  } finally {
    await browser.close();
  }
}

function table(rows: Row[], stored: number): string {
  const lines = [
    `A monitor with ${stored.toLocaleString("en")} results (${DAYS} days every 5 minutes in ${REGIONS.length} regions); the chart draws p50 and p95 per region (${2 * REGIONS.length} lines). ${LOADS} loads per range in headless Chromium (1280 px wide), each a fresh page; the figure is the measure \`${CHART_DRAW_MEASURE}\` from just before \`new uPlot(...)\` to the end of its first draw. Goal: the 14-day chart within ${GOAL_MS} ms.`,
    "",
    "| range | points per line | p50 (ms) | p95 (ms) | max (ms) | goal |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    ...rows.map(({ range, draws }) => {
      const sorted = sortedCopy(draws);
      const p95 = percentile(sorted, 95);
      // A bucket per resolution step over the range, and the one holding now.
      const points = TIME_RANGES[range] / TIMESERIES_RESOLUTIONS[range].bucketMs + 1;
      return `| ${range} | ${points} | ${fmt(percentile(sorted, 50), 1)} | ${fmt(p95, 1)} | ${fmt(sorted[sorted.length - 1]!, 1)} | ${range === "14d" ? (p95 <= GOAL_MS ? "met" : "missed") : "—"} |`;
    }),
  ];
  return lines.join("\n");
}

async function main(): Promise<void> {
  assertBuilt("apps/control-plane", "apps/console");
  const { target, remove } = await benchDatabase("postgres", DATABASE);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    log(`seeding ${DAYS} days of results in ${REGIONS.length} regions`);
    const { monitorId, stored } = await seed(target);
    server = await startServer(target);
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const rows = await measure(baseUrl, monitorId, await sessionOf(baseUrl, PERSON));
    const generated = [`${runOn("PostgreSQL, Chromium headless")} Command: \`${commandLine("bench:console-chart")}\`.`, "", table(rows, stored)].join("\n");
    process.stdout.write(`${generated}\n`);
    writeDocsBlock("console-chart", "Console: the monitor page's latency chart (issue 38)", "bench/console-chart.ts", generated);
  } finally {
    if (server) await stopServer(server.child);
    await remove();
  }
}

runBenchmark(main);
