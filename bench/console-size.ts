// What the console's pages make a browser download: the first page (sign-in, for anyone) and the landing page after
// sign-in (the monitors overview), as Chromium's resource timing reads them (bytes on the wire, gzipped as the control
// plane sends them). Goal (issue 38): the first page's script and style at most 200 KB gzipped.
// Usage: pnpm bench:console-size; BENCH_NO_DOC=1 prints only.
import type { BrowserContext } from "playwright-core";
import { applyMigrations, openDatabase, type DatabaseTarget } from "@vigil/db";
import { SESSION_COOKIE } from "@vigil/domain";
import { launchBrowser } from "@vigil/local-servers/chromium";
import { seedWorkspace } from "./seed";
import { assertBuilt } from "./support/built";
import { addPerson, sessionOf } from "./support/console-person";
import { benchDatabase } from "./support/database";
import { writeDocsBlock } from "./support/doc";
import { runOn } from "./support/machine";
import { runBenchmark } from "./support/run";
import { startServer, stopServer } from "./support/server-process";
import { fmt } from "./support/stats";

const GOAL_KB = 200;
const PERSON = { email: "bench-size@example.com", name: "Bench Viewer", password: "plum-harbour-lantern-42" };

interface Downloaded {
  page: string;
  scripts: number;
  styles: number;
  files: number;
}

const RESOURCES = 'performance.getEntriesByType("resource").map((e) => ({ name: e.name, bytes: e.encodedBodySize }))';
/** How long no new resource may appear for a page to count as loaded (the overview's stream keeps the network busy). */
const QUIET_MS = 1_000;

/** Opens `path` in a fresh page, waits for `ready`, and sums the scripts and styles it fetched (encoded bytes). */
async function downloaded(context: BrowserContext, base: string, path: string, ready: string): Promise<Downloaded> {
  const page = await context.newPage();
  await page.goto(`${base}${path}`);
  await page.getByRole("heading", { level: 1, name: ready }).waitFor();
  let entries = await page.evaluate<{ name: string; bytes: number }[]>(RESOURCES);
  for (let before = -1; entries.length !== before; ) {
    before = entries.length;
    await page.waitForTimeout(QUIET_MS);
    entries = await page.evaluate<{ name: string; bytes: number }[]>(RESOURCES);
  }
  await page.close();
  const of = (extension: string) => entries.filter((e) => new URL(e.name).pathname.endsWith(extension));
  const sum = (list: { bytes: number }[]) => list.reduce((total, e) => total + e.bytes, 0);
  return { page: path, scripts: sum(of(".js")), styles: sum(of(".css")), files: of(".js").length + of(".css").length };
}

async function seed(target: DatabaseTarget): Promise<void> {
  const db = await openDatabase(target);
  try {
    await applyMigrations(db);
    await seedWorkspace(db.prisma, 20);
    await addPerson(db.prisma, PERSON);
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  assertBuilt("apps/control-plane", "apps/console");
  const { target, remove } = await benchDatabase("postgres", "vigil_bench_console_size");
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  const browser = await launchBrowser();
  try {
    await seed(target);
    server = await startServer(target);
    const base = `http://127.0.0.1:${server.port}`;
    const visitor = await browser.newContext();
    const first = await downloaded(visitor, base, "/app/sign-in", "Sign in");
    const member = await browser.newContext();
    await member.addCookies([{ name: SESSION_COOKIE, value: await sessionOf(base, PERSON), url: base }]);
    const landing = await downloaded(member, base, "/app/", "Monitors");
    const kb = (bytes: number) => fmt(bytes / 1024, 1);
    const rows = [first, landing].map((d) => `| \`${d.page}\` | ${d.files} | ${kb(d.scripts)} | ${kb(d.styles)} | ${kb(d.scripts + d.styles)} |`);
    const firstTotal = (first.scripts + first.styles) / 1024;
    const generated = [
      `${runOn(`Chromium ${browser.version()} headless; PostgreSQL`)} ` +
      "Command: `pnpm bench:console-size`. Each page opened in a fresh browser, its scripts and styles summed from the resource timing entries (encoded bytes: gzipped, as the control plane sends them); `/app/` is a signed-in viewer's landing page (the monitors overview, 20 monitors).",
      "",
      "| Page | Files | Script (KB) | Style (KB) | Together (KB) |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...rows,
      "",
      `First page: ${fmt(firstTotal, 1)} KB (goal ≤ ${GOAL_KB} KB: ${firstTotal <= GOAL_KB ? "met" : "missed"}).`,
    ].join("\n");
    process.stdout.write(`${generated}\n`);
    writeDocsBlock("console-size", "Console: what the first pages download (issue 38)", "bench/console-size.ts", generated);
  } finally {
    await browser.close();
    if (server) await stopServer(server.child);
    await remove();
  }
}

runBenchmark(main);
