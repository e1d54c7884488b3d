// Console overview benchmark (issue 38): a workspace of 1,000 monitors with 24 hours of results, Chromium opening
// /app/monitors signed in, figures from the browser's performance entries (navigation start to the rows shown,
// the end of the last long task after it); the delay from a result published to the results stream to its row
// changing on screen, and, in the same run, to a WatchMonitorOverviews stream and to a ListMonitorOverviews poller
// seeing it, beside the delay to the result being stored (what no way of telling can beat); and what each way
// costs the server with many consoles open, quiet and with results arriving.
// Usage: pnpm bench:console-overview, with optional BENCH_BACKEND (postgres), BENCH_LOADS (5), BENCH_UPDATES (100),
// BENCH_CONSOLES (100), BENCH_SECONDS (10), BENCH_NO_DOC=1 (print only). Progress on stderr; figures on stdout
// and in docs/benchmarks.md.
import { applyMigrations, openDatabase, type DatabaseTarget, type PrismaClient } from "@vigil/db";
import { SESSION_COOKIE, type RegionId } from "@vigil/domain";
import type { MonitorOverview } from "@vigil/proto";
import { createClient, type VigilClient } from "@vigil/client";
import { connectRedis, resultsStreamKey, type ResultMessage } from "@vigil/queue";
import { loadavg } from "node:os";
import type { Page } from "playwright-core";
import { addPerson, sessionOf } from "./support/console-person";
import { storeResults } from "@vigil/control-plane/results/store";
import { launchBrowser } from "@vigil/local-servers/chromium";
import { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";
import { keepScreenshots } from "./support/screenshots";
import { seedWorkspace } from "./seed";
import { assertBuilt } from "./support/built";
import { benchDatabase } from "./support/database";
import { writeDocsBlock } from "./support/doc";
import { cpuMeter, postgresTicks, processTicks, redisTicks, runOn } from "./support/machine";
import { benchPrefix, log, runBenchmark, sleep } from "./support/run";
import { startServer, stopServer } from "./support/server-process";
import { fmt, median, summarize } from "./support/stats";
import { checkResult } from "./support/results";
import { appendResults } from "./support/stream";

const BACKEND = (process.env.BENCH_BACKEND ?? "postgres") as "postgres" | "pglite";
const LOADS = Number(process.env.BENCH_LOADS ?? 5);
const UPDATES = Number(process.env.BENCH_UPDATES ?? 100);
const CONSOLES = Number(process.env.BENCH_CONSOLES ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const MONITORS = 1_000;
const HOUR = 3_600_000;
const PERSON = { email: "bench-console@example.com", name: "Bench Person", password: "plum-harbour-lantern-42" };
/** The poll period of the console when it polled: the polling compared with its stream. */
const POLL_MS = 500;
/** Results a second while the pollers run "busy": a thousand monitors checked once a minute. */
const BUSY_RESULTS_PER_SECOND = MONITORS / 60;
/** The mark the page sets once its rows are shown (apps/console/src/pages/monitors/Overview.tsx). */
const RENDERED_MARK = "vigil:overview-rendered";
const RULES = { defaultRegions: ["hostA-ams"] as RegionId[], quorum: "half" as const };
/** The issue's goals. */
const INTERACTIVE_GOAL_MS = 1_500;
const LIVE_GOAL_MS = 2_000;

let sequence = 0;
const result = (monitorId: string, region: RegionId, startedAt: Date, latencyMs: number, failed = false): ResultMessage =>
  checkResult({ id: `${region}:bench-console-${++sequence}`, monitorId, region, startedAt, latencyMs, status: failed ? "error" : "success" });

interface Seeded {
  monitors: { id: string; region: RegionId }[];
}

/** 1,000 monitors, a person (viewer), and 24 hours of results: one an hour per monitor, and a recent one in each region. */
async function prepare(target: DatabaseTarget): Promise<Seeded> {
  const db = await openDatabase(target);
  try {
    await applyMigrations(db);
    await seedWorkspace(db.prisma, MONITORS);
    await addPerson(db.prisma, PERSON);
    const workspace = await db.prisma.workspace.findUniqueOrThrow({ where: { slug: "bench" } });
    const rows = await db.prisma.monitor.findMany({ where: { workspaceId: workspace.id }, select: { id: true, regions: true, active: true }, orderBy: { createdAt: "asc" } });
    log(`storing 24 hours of results of ${rows.length} monitors`);
    const now = Date.now();
    const results: ResultMessage[] = [];
    rows.forEach((m, i) => {
      const regions = m.regions as RegionId[];
      for (let h = 23; h >= 1; h--) results.push(result(m.id, regions[0]!, new Date(now - h * HOUR - (i % 60) * 60_000), 50 + ((i * 7 + h * 13) % 400), (i + h) % 37 === 0));
      for (const region of regions) results.push(result(m.id, region, new Date(now - 20_000), 50 + (i % 300), i % 50 === 0));
    });
    await store(db.prisma, results);
    await db.prisma.$executeRawUnsafe("ANALYZE");
    return { monitors: rows.filter((m) => m.active).map((m) => ({ id: m.id, region: (m.regions as RegionId[])[0]! })) };
  } finally {
    await db.close();
  }
}

async function store(prisma: PrismaClient, results: ResultMessage[]): Promise<void> {
  for (let from = 0; from < results.length; from += 1_000) await storeResults(prisma, results.slice(from, from + 1_000), RULES);
}

interface Load {
  /** The first ListMonitorOverviews call sent, and the last one answered. */
  firstCallMs: number;
  lastAnswerMs: number;
  renderedMs: number;
  interactiveMs: number;
  longTasks: number;
  rows: number;
}

/** Opens the overview in a fresh page and reads its performance entries once the rows are shown and the page is quiet. */
async function openOverview(page: Page, base: string): Promise<Load> {
  // Strings, not functions: they run in the page, whose types this file (Node's) does not have.
  await page.addInitScript(`
    window.longTasks = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => ({ start: e.startTime, end: e.startTime + e.duration }))))
      .observe({ type: "longtask", buffered: true });`);
  await page.goto(`${base}/app/monitors`);
  // Polled with evaluate: waitForFunction evaluates its string with eval, which the console's CSP refuses.
  while (!(await page.evaluate<boolean>(`performance.getEntriesByName("${RENDERED_MARK}").length > 0`))) await sleep(20);
  // Long tasks after the rows are shown (the browser's own work on them) still keep the page from answering.
  await sleep(1_000);
  return page.evaluate<Load>(`(() => {
    const rendered = performance.getEntriesByName("${RENDERED_MARK}")[0].startTime;
    // The pages' calls; the polls after the rows were shown are not part of the load.
    const calls = performance.getEntriesByType("resource").filter((e) => e.name.includes("ListMonitorOverviews") && e.responseEnd <= rendered);
    return {
      firstCallMs: Math.min(...calls.map((e) => e.startTime)),
      lastAnswerMs: Math.max(...calls.map((e) => e.responseEnd)),
      renderedMs: rendered,
      interactiveMs: Math.max(rendered, ...window.longTasks.map((t) => t.end)),
      longTasks: window.longTasks.length,
      rows: document.querySelectorAll("tbody tr").length,
    };
  })()`);
}

/** Waits in the page until the row of `id` shows `text` as its last latency; resolves with Date.now() then. */
const seenAt = (page: Page, id: string, text: string) =>
  page.evaluate<number>(`new Promise((resolve) => {
    const shows = () => document.querySelector('tr[data-monitor="${id}"] td[data-label="Last latency"]')?.textContent === "${text}";
    const observer = new MutationObserver(() => {
      if (shows()) {
        observer.disconnect();
        resolve(Date.now());
      }
    });
    observer.observe(document.querySelector("tbody"), { subtree: true, childList: true, characterData: true });
  })`);

/** When the result's latency is the region's newest in the database: stored, and what a push would start from. */
async function storedAt(prisma: PrismaClient, id: string, region: RegionId, latencyMs: number): Promise<number> {
  for (;;) {
    const [row] = await prisma.$queryRaw<{ latency_ms: number }[]>`SELECT latency_ms FROM monitor_region_statuses WHERE monitor_id = ${id} AND region = ${region}`;
    if (row?.latency_ms === latencyMs) return Date.now();
    await sleep(20);
  }
}

/** When each (monitor, latency) was first seen by a way of following the overviews, by `${id}:${latency}`. */
type Sightings = Map<string, number>;

function sighted(sightings: Sightings, monitors: readonly MonitorOverview[]): void {
  const now = Date.now();
  for (const m of monitors) {
    const key = `${m.id}:${m.lastLatencyMs}`;
    if (!sightings.has(key)) sightings.set(key, now);
  }
}

type Overviews = VigilClient["monitors"];

/** The overviews as the person's console asks for them: Connect JSON over HTTP/1.1 with their session (their one workspace). */
const overviewClient = (base: string, session: string): Overviews => createClient({ baseUrl: base, session, retry: { maxAttempts: 1 } }).monitors;

/** Every page, as a console loads them; the first page's token. */
async function loadAll(client: Overviews): Promise<{ monitors: MonitorOverview[]; changeToken: string }> {
  const first = await client.listMonitorOverviews({ limit: 100 });
  const rest = await Promise.all(Array.from({ length: Math.ceil(first.totalSize / 100) - 1 }, (_, i) => client.listMonitorOverviews({ limit: 100, offset: (i + 1) * 100 })));
  return { monitors: [first, ...rest].flatMap((page) => page.monitors), changeToken: first.changeToken };
}

/** Follows the overviews by WatchMonitorOverviews, as the console does, until `signal`; `onMessage` for each message. */
async function watching(client: Overviews, changeToken: string, signal: AbortSignal, onMessage: (monitors: MonitorOverview[]) => void): Promise<void> {
  while (!signal.aborted) {
    try {
      for await (const message of client.watchMonitorOverviews({ changedSince: changeToken }, { signal })) {
        if (message.reload) {
          const all = await loadAll(client);
          onMessage(all.monitors);
        } else onMessage(message.monitors);
        changeToken = message.changeToken;
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }
}

/** Follows the overviews by polling ListMonitorOverviews every POLL_MS with its last token, as the console did; `onAnswer` for each poll. */
async function polling(client: Overviews, changeToken: string, signal: AbortSignal, onAnswer: (monitors: MonitorOverview[], ms: number) => void): Promise<void> {
  while (!signal.aborted) {
    const t0 = performance.now();
    const answer = await client.listMonitorOverviews({ limit: 100, changedSince: changeToken });
    if (answer.changesOnly || answer.unchanged) {
      onAnswer(answer.monitors, performance.now() - t0);
      changeToken = answer.changeToken;
    } else {
      const all = await loadAll(client);
      onAnswer(all.monitors, performance.now() - t0);
      changeToken = all.changeToken;
    }
    await sleep(Math.max(0, POLL_MS - (performance.now() - t0)));
  }
}

interface Live {
  screen: number[];
  watched: number[];
  polled: number[];
  stored: number[];
}

/** Waits for `key` to be sighted; answers its delay after `published`. */
async function sightedAfter(sightings: Sightings, key: string, published: number): Promise<number> {
  for (let waited = 0; waited < 30_000; waited += 10) {
    const at = sightings.get(key);
    if (at !== undefined) return at - published;
    await sleep(10);
  }
  throw new Error(`${key} was never seen`);
}

async function liveUpdates(page: Page, prisma: PrismaClient, base: string, session: string, prefix: string, monitors: Seeded["monitors"]): Promise<Live> {
  const redis = connectRedis(redisServerUrl(), "bench-agent");
  const live: Live = { screen: [], watched: [], polled: [], stored: [] };
  const byWatch: Sightings = new Map();
  const byPoll: Sightings = new Map();
  const stop = new AbortController();
  const client = overviewClient(base, session);
  const { changeToken } = await loadAll(client);
  const followers = [watching(client, changeToken, stop.signal, (m) => sighted(byWatch, m)), polling(client, changeToken, stop.signal, (m) => sighted(byPoll, m))];
  try {
    await sleep(2_000);
    for (let i = 0; i < UPDATES; i++) {
      const { id, region } = monitors[(i * 37) % monitors.length]!;
      // A latency no row shows yet, in ms below a second (formatLatency's "123 ms").
      const latencyMs = 500 + (i % 499);
      const seen = seenAt(page, id, `${latencyMs} ms`);
      const stored = storedAt(prisma, id, region, latencyMs);
      const published = Date.now();
      await appendResults(redis, resultsStreamKey(prefix), [result(id, region, new Date(), latencyMs)]);
      live.screen.push((await seen) - published);
      live.stored.push((await stored) - published);
      live.watched.push(await sightedAfter(byWatch, `${id}:${latencyMs}`, published));
      live.polled.push(await sightedAfter(byPoll, `${id}:${latencyMs}`, published));
      // Out of step with the poll, as results come.
      await sleep(137 + ((i * 211) % 700));
    }
  } finally {
    stop.abort();
    await Promise.allSettled(followers);
    await redis.quit();
  }
  return live;
}

const WAYS = { none: "no console (baseline)", watching: "streaming", polling: "polling" } as const;

interface Cost {
  way: "polling" | "watching" | "none";
  what: string;
  /** Polls answered, or stream messages received. */
  answers: number;
  /** Server and database CPU, % of a core, and the server's part. */
  cpu: number;
  serverCpu: number;
  /** Polling: a poll's round trip, p99 (ms). */
  pollP99?: number;
}

/** CONSOLES consoles following the overview one `way` for SECONDS, with results arriving at `rate` a second. */
async function followingCost(way: Cost["way"], serverPid: number, base: string, session: string, prefix: string, monitors: Seeded["monitors"], rate: number): Promise<Cost> {
  const client = overviewClient(base, session);
  const { changeToken } = await loadAll(client);
  const redis = connectRedis(redisServerUrl(), "bench-agent");
  const stop = new AbortController();
  const publisher = (async () => {
    for (let i = 0; rate > 0 && !stop.signal.aborted; i++) {
      const { id, region } = monitors[i % monitors.length]!;
      await appendResults(redis, resultsStreamKey(prefix), [result(id, region, new Date(), 60 + (i % 300))]);
      await sleep(1_000 / rate);
    }
  })();
  let answers = 0;
  const pollMs: number[] = [];
  // Each console a client of its own.
  const followers = Array.from({ length: way === "none" ? 0 : CONSOLES }, async (_, c) => {
    const own = overviewClient(base, session);
    await sleep((POLL_MS * c) / CONSOLES);
    if (way === "watching") await watching(own, changeToken, stop.signal, () => answers++);
    else await polling(own, changeToken, stop.signal, (_m, ms) => (answers++, pollMs.push(ms)));
  });
  // The consoles' first answers are not part of what following costs.
  await sleep(POLL_MS * 2);
  answers = 0;
  pollMs.length = 0;
  const meter = cpuMeter({ server: () => processTicks(serverPid).ticks, postgres: postgresTicks, redis: redisTicks(new URL(redisServerUrl()).port) });
  await sleep(SECONDS * 1_000);
  const cpu = meter();
  stop.abort();
  await Promise.allSettled([publisher, ...followers]);
  await redis.quit();
  const busy = cpu.server! + cpu.postgres!;
  return {
    way,
    what: rate > 0 ? `${rate.toFixed(1)} results/s arriving` : "quiet",
    answers,
    cpu: busy,
    serverCpu: cpu.server!,
    pollP99: way === "polling" ? summarize(pollMs).p99 : undefined,
  };
}

async function main(): Promise<void> {
  assertBuilt("apps/control-plane", "apps/console", "packages/db", "packages/domain", "packages/proto", "packages/queue");
  const loadAverage = fmt(loadavg()[0]!, 1);
  const { target, remove } = await benchDatabase(BACKEND, "vigil_bench_console");
  const prefix = benchPrefix();
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  const browser = await launchBrowser();
  try {
    const seeded = await prepare(target);
    server = await startServer(target, { BENCH_REDIS_PREFIX: prefix });
    const base = `http://127.0.0.1:${server.port}`;
    const session = await sessionOf(base, PERSON);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: SESSION_COOKIE, value: session, url: base }]);
    const loads: Load[] = [];
    let page: Page | undefined;
    for (let i = 0; i < LOADS; i++) {
      await page?.close();
      page = await context.newPage();
      loads.push(await openOverview(page, base));
      log(`load ${i + 1}: rows ${loads[i]!.rows}, API ${fmt(loads[i]!.firstCallMs)}–${fmt(loads[i]!.lastAnswerMs)} ms, rendered ${fmt(loads[i]!.renderedMs)} ms, interactive ${fmt(loads[i]!.interactiveMs)} ms, ${loads[i]!.longTasks} long tasks`);
      if (loads[i]!.rows !== MONITORS) throw new Error(`the page shows ${loads[i]!.rows} rows, not ${MONITORS}`);
    }
    await keepScreenshots(page!, "console-overview");
    log(`live updates: ${UPDATES} results`);
    const db = await openDatabase(target);
    let live: Live;
    try {
      live = await liveUpdates(page!, db.prisma, base, session, prefix, seeded.monitors);
    } finally {
      await db.close();
    }
    const costs: Cost[] = [];
    for (const rate of [0, BUSY_RESULTS_PER_SECOND]) {
      // Nobody following: what storing the results costs by itself.
      for (const way of ["none", "watching", "polling"] as const) {
        log(`${CONSOLES} consoles ${way}, ${fmt(rate, 1)} results/s`);
        costs.push(await followingCost(way, server.child.pid!, base, session, prefix, seeded.monitors, rate));
      }
    }
    const screen = summarize(live.screen);
    const [watched, polled, stored] = [live.watched, live.polled, live.stored].map(summarize) as [ReturnType<typeof summarize>, ReturnType<typeof summarize>, ReturnType<typeof summarize>];
    // What following adds to the same workspace with nobody following, in ms of CPU for each console and minute.
    const addedPerConsoleMinute = (c: Cost) => (((c.cpu - costs.find((b) => b.way === "none" && b.what === c.what)!.cpu) / 100) * 60_000) / CONSOLES;
    const row = (what: string, d: ReturnType<typeof summarize>) => `| ${what} | ${fmt(d.p50)} | ${fmt(d.p99)} | ${fmt(d.max)} |`;
    const interactive = median(loads.map((l) => l.interactiveMs));
    const generated = [
      `${runOn(`Chromium ${browser.version()} headless, 1280×900; ${BACKEND}; load average ${loadAverage} at the start, ${fmt(loadavg()[0]!, 1)} at the end (the machine is shared)`)} ` +
        `Command: \`pnpm bench:console-overview\` (BENCH_LOADS=${LOADS}, BENCH_UPDATES=${UPDATES}, BENCH_CONSOLES=${CONSOLES}, BENCH_SECONDS=${SECONDS}): ` +
        `${MONITORS} monitors (bench/seed.ts) with 24 hours of results, a viewer signed in, \`/app/monitors\` opened ${LOADS} times in fresh pages (the first one with the server's caches cold).`,
      "",
      "| Load | Rows | First overview call sent (ms from navigation start) | Last page answered (ms) | Rows shown (ms) | Interactive (end of the last long task, ms) | Long tasks |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...loads.map((l, i) => `| ${i + 1} | ${l.rows} | ${fmt(l.firstCallMs)} | ${fmt(l.lastAnswerMs)} | ${fmt(l.renderedMs)} | ${fmt(l.interactiveMs)} | ${l.longTasks} |`),
      "",
      `Interactive, median of the loads: ${fmt(interactive)} ms (goal ≤ ${INTERACTIVE_GOAL_MS} ms: ${interactive <= INTERACTIVE_GOAL_MS ? "met" : "not met"}).`,
      "",
      `Live updates, ${UPDATES} results appended to the results stream one at a time, out of step with the poll; the page, a stream and a poller following the overviews at once:`,
      "",
      "| From a result published to | p50 (ms) | p99 (ms) | max (ms) |",
      "|---|---:|---:|---:|",
      row("its row changed on screen (the console, following WatchMonitorOverviews)", screen),
      row("a WatchMonitorOverviews message holding it (server streaming)", watched),
      row(`a ListMonitorOverviews answer holding it, asked every ${POLL_MS} ms with the last token (polling)`, polled),
      row("its status stored, as read every 20 ms (what neither way can beat)", stored),
      "",
      `Live update p99 on screen ${fmt(screen.p99)} ms (goal < ${LIVE_GOAL_MS} ms: ${screen.p99 < LIVE_GOAL_MS ? "met" : "not met"}).`,
      "",
      `Server cost: ${CONSOLES} consoles following the overview for ${SECONDS} s, each on a connection of its own, by a stream or by asking every ${POLL_MS} ms with the token of its last answer (loading every page again when told to):`,
      "",
      "| Workspace | Way | Messages or answers | Server + database CPU (% of a core) | of which the server | CPU added per console and minute (ms) | Poll p99 (ms) |",
      "|---|---|---:|---:|---:|---:|---:|",
      ...costs.map((c) => `| ${c.what} | ${WAYS[c.way]} | ${c.answers} | ${fmt(c.cpu, 1)} | ${fmt(c.serverCpu, 1)} | ${c.way === "none" ? "–" : fmt(addedPerConsoleMinute(c), 1)} | ${c.pollP99 === undefined ? "–" : fmt(c.pollP99, 1)} |`),
    ].join("\n");
    process.stdout.write(`${generated}\n`);
    writeDocsBlock("console-overview", "Console overview (issue 38)", "bench/console-overview.ts", generated);
  } finally {
    await browser.close();
    if (server) await stopServer(server.child);
    await deletePrefix(prefix);
    await remove();
  }
}

runBenchmark(main);
