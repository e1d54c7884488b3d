// Status page subscribers benchmark (issue 40), on PostgreSQL and real Redis, the built control plane in a
// process of its own (bench/api-server.ts). A page with 10,000 confirmed email subscribers and 1,000
// webhook subscribers; one AddStatusPageIncidentUpdate; the time until a local SMTP server has accepted
// the last of the mails and a local receiver has been sent the last of the webhooks (goals: under 60 s
// and 10 s), and GetMonitor's latency one call at a time meanwhile, beside the same figure with nothing
// being sent.
// Usage: pnpm bench:subscribers, with optional BENCH_EMAILS (10000), BENCH_WEBHOOKS (1000),
// BENCH_IDLE_SECONDS (10), VIGIL_TEST_POSTGRES_URL, VIGIL_TEST_REDIS_URL.
// Progress goes to stderr; the table to stdout and into docs/benchmarks.md.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { SMTPServer } from "smtp-server";
import { applyMigrations, openDatabase } from "@vigil/db";
import { newSigningSecret } from "@vigil/notifications";
import { SecretBox } from "@vigil/control-plane/notifications/secrets";
import { Administration } from "@vigil/control-plane/admin/operations";
import { dropDatabase, recreateDatabase } from "@vigil/local-servers/postgres";
import { seedWorkspace } from "./seed";
import { assertBuilt } from "./support/built";
import { writeDocsBlock } from "./support/doc";
import { runOn } from "./support/machine";
import { log, runBenchmark, sleep } from "./support/run";
import { startServer, stopServer } from "./support/server-process";
import { commandLine, numberSetting } from "./support/settings";
import { fmt, percentile, sortedCopy } from "./support/stats";

const EMAILS = numberSetting("EMAILS", 10_000);
const WEBHOOKS = numberSetting("WEBHOOKS", 1_000);
const IDLE_SECONDS = numberSetting("IDLE_SECONDS", 10);
const DATABASE = "vigil_bench_subscribers";
/** Longer than this, the run is a failure rather than a figure. */
const GIVE_UP_MS = 300_000;

/** Counts what a receiver was sent, and when the last of it came. */
class Arrivals {
  count = 0;
  lastAt = 0;
  arrived(): void {
    this.count++;
    this.lastAt = performance.now();
  }
}

/** An SMTP server on loopback that accepts every mail and keeps only their number. */
async function startSmtp(arrivals: Arrivals) {
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, callback) {
      stream.on("end", () => {
        arrivals.arrived();
        callback();
      });
      stream.resume();
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(resolve)) };
}

/** A webhook receiver on loopback that answers 204 to everything. */
async function startReceiver(arrivals: Arrivals) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      arrivals.arrived();
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** GetMonitor one call at a time until `until()` says stop: its latencies, sorted. */
async function apiLatencies(port: number, key: string, monitorId: string, until: () => boolean): Promise<Float64Array> {
  const latencies: number[] = [];
  while (!until()) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/monitor.v1.MonitorService/GetMonitor`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-key": key },
      body: JSON.stringify({ id: monitorId }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GetMonitor answered ${response.status}`);
    latencies.push(performance.now() - started);
  }
  return sortedCopy(latencies);
}

interface Figures {
  version: string;
  idle: Float64Array;
  during: Float64Array;
  emailMs: number;
  webhookMs: number;
  delivered: number;
}

async function run(): Promise<Figures> {
  const mails = new Arrivals();
  const hooks = new Arrivals();
  const smtp = await startSmtp(mails);
  const receiver = await startReceiver(hooks);
  const key = randomBytes(32);
  const box = new SecretBox(key);
  const url = await recreateDatabase(DATABASE);
  const db = await openDatabase({ kind: "postgres", url });
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    await applyMigrations(db);
    const seeded = await seedWorkspace(db.prisma, 1);
    const { workspaceId } = await db.prisma.monitor.findUniqueOrThrow({ where: { id: seeded.monitorIds[0]! } });
    // The update needs a key with the write scope; GetMonitor is read with the seeded read key.
    const { key: writeKey } = await new Administration(db.prisma).createApiKey({ workspaceSlug: "bench", scope: "write" });
    const page = await db.prisma.statusPage.create({ data: { workspaceId, title: "Bench Status", slug: "bench-subscribers", authEmailDomains: [] } });
    const confirmedAt = new Date();
    for (let from = 0; from < EMAILS; from += 5_000) {
      await db.prisma.statusPageSubscriber.createMany({
        data: Array.from({ length: Math.min(5_000, EMAILS - from) }, (_, i) => ({
          pageId: page.id, kind: "email", email: `reader-${from + i}@example.com`, unsubscribeTokenHash: `bench-e-${from + i}`, confirmedAt,
        })),
      });
    }
    // One secret sealed once: sealing 1,000 would only slow the seeding.
    const secret = box.seal(newSigningSecret());
    await db.prisma.statusPageSubscriber.createMany({
      data: Array.from({ length: WEBHOOKS }, (_, i) => ({
        pageId: page.id, kind: "webhook", webhookUrl: `http://127.0.0.1:${receiver.port}/hook/${i}`, webhookSecret: secret, unsubscribeTokenHash: `bench-w-${i}`, confirmedAt,
      })),
    });
    // Stored directly: its creation would tell the subscribers too, and the update is what is timed.
    const incident = await db.prisma.statusPageIncident.create({
      data: { pageId: page.id, title: "Checkout errors", status: "investigating", updates: { create: { status: "investigating", message: "Looking into it." } } },
    });
    await db.prisma.$executeRawUnsafe("ANALYZE");
    const version = (await db.prisma.$queryRawUnsafe<{ server_version: string }[]>("SHOW server_version"))[0]!.server_version;
    log(`seeded a page with ${fmt(EMAILS)} email and ${fmt(WEBHOOKS)} webhook subscribers`);

    server = await startServer({ kind: "postgres", url }, { BENCH_SMTP_URL: smtp.url, BENCH_ENCRYPTION_KEY: key.toString("base64") });
    const port = server.port;
    const idleUntil = performance.now() + IDLE_SECONDS * 1000;
    const idle = await apiLatencies(port, seeded.key, seeded.monitorIds[0]!, () => performance.now() > idleUntil);
    log(`idle: ${idle.length} GetMonitor calls`);

    const started = performance.now();
    const answer = await fetch(`http://127.0.0.1:${port}/status_page.v1.StatusPageService/AddStatusPageIncidentUpdate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-key": writeKey },
      body: JSON.stringify({ incidentId: incident.id, status: "identified", message: "A full disk; **cleaning up**." }),
    });
    if (answer.status !== 200) throw new Error(`AddStatusPageIncidentUpdate answered ${answer.status}: ${await answer.text()}`);
    const done = () => (mails.count >= EMAILS && hooks.count >= WEBHOOKS) || performance.now() - started > GIVE_UP_MS;
    const during = await apiLatencies(port, seeded.key, seeded.monitorIds[0]!, done);
    if (mails.count < EMAILS || hooks.count < WEBHOOKS) throw new Error(`gave up: ${mails.count} mails and ${hooks.count} webhooks after ${GIVE_UP_MS / 1000} s`);
    // The rows follow the sends: wait for the last batch's to be written.
    let delivered = 0;
    for (let i = 0; i < 100 && delivered < EMAILS + WEBHOOKS; i++) {
      delivered = await db.prisma.statusPageNoticeDelivery.count({ where: { outcome: "delivered" } });
      if (delivered < EMAILS + WEBHOOKS) await sleep(100);
    }
    return { version, idle, during, emailMs: mails.lastAt - started, webhookMs: hooks.lastAt - started, delivered };
  } finally {
    if (server) await stopServer(server.child);
    await db.close();
    await dropDatabase(DATABASE);
    await smtp.close();
    await receiver.close();
  }
}

const ms = (value: number) => fmt(Math.round(value));
const quantiles = (sorted: Float64Array) => `${percentile(sorted, 50).toFixed(2)} | ${percentile(sorted, 99).toFixed(2)} | ${sorted.length}`;

async function main(): Promise<void> {
  assertBuilt("apps/control-plane", "packages/db", "packages/domain", "packages/proto", "packages/queue", "packages/logging", "packages/notifications");
  const f = await run();
  const markdown = [
    "| Measure | Figure | Goal |",
    "|---|---:|---|",
    `| Update to the last of ${fmt(EMAILS)} mails accepted by the SMTP server | ${ms(f.emailMs)} ms | < 60,000 ms: ${f.emailMs < 60_000 ? "met" : "missed"} |`,
    `| Update to the last of ${fmt(WEBHOOKS)} webhooks reached | ${ms(f.webhookMs)} ms | < 10,000 ms: ${f.webhookMs < 10_000 ? "met" : "missed"} |`,
    `| Deliveries recorded delivered | ${fmt(f.delivered)} of ${fmt(EMAILS + WEBHOOKS)} | all |`,
    "",
    "| GetMonitor, one call at a time | p50 (ms) | p99 (ms) | calls |",
    "|---|---:|---:|---:|",
    `| idle, ${IDLE_SECONDS} s | ${quantiles(f.idle)} |`,
    `| while the notice is sent | ${quantiles(f.during)} |`,
  ].join("\n");
  process.stdout.write(`${markdown}\n`);
  writeDocsBlock(
    "subscribers",
    "Status page subscribers (issue 40)",
    "bench/subscribers.ts",
    [
      `${runOn(`PostgreSQL ${f.version}`)} Command: \`${commandLine("bench:subscribers")}\`. The built control plane in a process of its own; a page with ` +
        `${fmt(EMAILS)} confirmed email and ${fmt(WEBHOOKS)} webhook subscribers of all of it; one AddStatusPageIncidentUpdate, timed from ` +
        "its call until a local SMTP server (smtp-server, in the benchmark's process) has accepted the last mail and a local HTTP " +
        "receiver has been sent the last webhook; meanwhile GetMonitor one call at a time, beside the same calls before, with nothing sent.",
      "",
      markdown,
    ].join("\n"),
  );
  log("wrote the subscribers block of docs/benchmarks.md");
}

runBenchmark(main);
