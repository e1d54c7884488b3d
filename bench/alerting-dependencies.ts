// The alert fan-out of a dependency tree failing at its root (issue 39), on PostgreSQL and real Redis, beside the
// same number of monitors without dependencies in the same run. The harness is bench/alerting.ts's: monitors seeded
// healthy in hostA-ams and hostB-fra (stored, not timed), one webhook channel of its own per monitor posting to the
// counting provider server on 127.0.0.1 (a child process), a startPipeline control plane with the deployment's
// defaults consuming the stream, failing results appended with pipelined XADD.
//  1. the tree: 1,000 monitors, a root, 31 depending on it, and 968 each depending on one of those 31 (three levels);
//     the root's failing round is appended first, the other 999's right after. Expected: one message, the root's.
//  2. without dependencies: 1,000 monitors' failing round. Expected: 1,000 messages.
// Usage: pnpm bench:alerting-dependencies, with optional VIGIL_TEST_POSTGRES_URL (else scripts/ensure-postgres.sh),
// VIGIL_TEST_REDIS_URL (else a Redis on port 6391 via scripts/ensure-redis.sh). Progress goes to stderr; the table to
// stdout and into docs/benchmarks.md.
import type { PrismaClient } from "@vigil/db";
import type { RegionId } from "@vigil/domain";
import { newSigningSecret } from "@vigil/notifications";
import type { RedisConnection } from "@vigil/queue";
import type { NotificationRepository } from "@vigil/control-plane/notifications/repository";
import { nameOf, preciseNow, type CountingServers } from "./alerting/counting-server";
import { onAlertingBench } from "./alerting/environment";
import { round as roundIn, until } from "./alerting/outage-results";
import { seedActiveMonitors } from "./seed";
import { writeDocsBlock } from "./support/doc";
import { runOn, waitForQuietMachine } from "./support/machine";
import { log, runBenchmark, sleep } from "./support/run";
import { commandLine } from "./support/settings";
import { fmt } from "./support/stats";
import { stderrLogger } from "./support/logger";
import { appendResults } from "./support/stream";

const MONITORS = 1_000;
/** Monitors on the tree's middle level; the rest depend on one of them each. */
const MIDDLE = 31;
const REGIONS: RegionId[] = ["hostA-ams", "hostB-fra"];
const PERIOD_MS = 30_000;
const DATABASE = "vigil_bench_alerting_dependencies";
const CREATE_CONCURRENCY = 20;

const logger = stderrLogger("warn", "bench-alerting-dependencies");

const round = (monitorIds: string[], slotMillis: number, healthy: boolean) => roundIn(monitorIds, REGIONS, slotMillis, healthy);

/** The tree's edges: monitor k (k ≥ 1) depends on the root (k ≤ MIDDLE) or on middle monitor 1 + (k mod MIDDLE). */
async function seedTree(prisma: PrismaClient, ids: string[]): Promise<void> {
  const edges = ids.slice(1).map((id, i) => {
    const k = i + 1;
    return { id, dependsOn: k <= MIDDLE ? ids[0]! : ids[1 + (k % MIDDLE)]! };
  });
  await prisma.$executeRaw`
    INSERT INTO monitor_dependencies (monitor_id, depends_on_id, position)
    SELECT m, d, 0 FROM unnest(${edges.map((e) => e.id)}::text[], ${edges.map((e) => e.dependsOn)}::text[]) AS e(m, d)`;
}

/** One webhook channel per monitor, posting to /webhook/<its index> on the counting server. */
async function createChannels(repository: NotificationRepository, workspaceId: string, monitorIds: string[], servers: CountingServers): Promise<void> {
  const writes = monitorIds.map((id, index) => ({
    name: `webhook for ${nameOf(index)}`,
    provider: { type: "webhook" as const, config: { endpoint: `${servers.urls.webhook}/webhook/${index}`, headers: [] } },
    signingSecret: newSigningSecret(),
    monitorIds: [id],
  }));
  for (let from = 0; from < writes.length; from += CREATE_CONCURRENCY) {
    await Promise.all(writes.slice(from, from + CREATE_CONCURRENCY).map((write) => repository.create(workspaceId, write)));
  }
}

interface Fanout {
  messages: number;
  /** Milliseconds from the first failing results (the root's, for the tree) being in the stream to the last message's arrival. */
  lastMs: number;
  alsoAffected: number;
}

/**
 * Appends the failing rounds (`first` then `rest`, each at once), waits until every monitor is failing and the
 * messages have arrived (`expected`, then 2 s for any more), and counts them.
 */
async function fanout(
  prisma: PrismaClient,
  agent: RedisConnection,
  key: string,
  servers: CountingServers,
  groups: { first: string[]; rest: string[]; all: string[] },
  slot: number,
  expected: number,
): Promise<Fanout> {
  const before = (await servers.received()).arrivals.length;
  await waitForQuietMachine();
  await appendResults(agent, key, round(groups.first, slot, false));
  const inStream = preciseNow();
  await appendResults(agent, key, round(groups.rest, slot, false));
  await until(async () => (await prisma.monitor.count({ where: { id: { in: groups.all }, status: "error" } })) === groups.all.length, 5 * 60_000, "every monitor to fail", 50);
  const delivered = () => prisma.notificationDelivery.count({ where: { monitorId: { in: groups.all }, outcome: "delivered" } });
  await until(async () => (await delivered()) >= expected, 5 * 60_000, `${expected} messages`, 50);
  // Anything more (a message the rule should have held back) would arrive soon after.
  await sleep(2_000);
  const received = await servers.received();
  if (received.rejected.length > 0) throw new Error(`${received.rejected.length} unexpected requests, e.g. ${received.rejected[0]}`);
  const arrivals = received.arrivals.slice(before);
  const alsoAffected = await prisma.incidentAlsoAffected.count({ where: { monitorId: { in: groups.all } } });
  return { messages: arrivals.length, lastMs: Math.max(...arrivals.map((a) => a.at)) - inStream, alsoAffected };
}

interface Figures {
  tree: Fanout;
  flat: Fanout;
  postgres: string;
  redis: string;
}

function run(): Promise<Figures> {
  return onAlertingBench(DATABASE, logger, async ({ db, agent, servers, repository, key, start }) => {
    log(`seeding ${2 * MONITORS} HTTP monitors (30 s, ${REGIONS.join(", ")}), a webhook channel each, and the tree's ${MONITORS - 1} dependencies`);
    const monitorIds = await seedActiveMonitors(db.prisma, 2 * MONITORS, { periodicity: "30s", regions: REGIONS });
    const [treeIds, flatIds] = [monitorIds.slice(0, MONITORS), monitorIds.slice(MONITORS)];
    const { workspaceId } = await db.prisma.monitor.findUniqueOrThrow({ where: { id: monitorIds[0]! } });
    await createChannels(repository, workspaceId, monitorIds, servers);
    await seedTree(db.prisma, treeIds);
    const warmSlot = (Math.floor(Date.now() / PERIOD_MS) - 3) * PERIOD_MS;
    await start(monitorIds, REGIONS, warmSlot);

    log(`the tree: the root's failing round, then the other ${MONITORS - 1} monitors'`);
    const tree = await fanout(db.prisma, agent, key, servers, { first: treeIds.slice(0, 1), rest: treeIds.slice(1), all: treeIds }, warmSlot + PERIOD_MS, 1);
    log(`the tree: ${tree.messages} message(s), the last ${(tree.lastMs / 1000).toFixed(2)} s after the root's results were in the stream`);
    if (tree.messages !== 1 || tree.alsoAffected !== MONITORS - 1) {
      throw new Error(`expected 1 message and ${MONITORS - 1} monitors also affected, got ${tree.messages} and ${tree.alsoAffected}`);
    }

    log(`without dependencies: ${MONITORS} monitors' failing round`);
    const flat = await fanout(db.prisma, agent, key, servers, { first: flatIds, rest: [], all: flatIds }, warmSlot + PERIOD_MS, MONITORS);
    log(`without dependencies: ${flat.messages} messages, the last ${(flat.lastMs / 1000).toFixed(2)} s after the results were in the stream`);
    if (flat.messages !== MONITORS) throw new Error(`expected ${MONITORS} messages, got ${flat.messages}`);
    return { tree, flat };
  });
}

function table(f: Figures): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  return [
    "| 1,000 monitors failing | Failing results | Messages sent | Also affected (on the root's incident) | Last message after (s) |",
    "|---|---:|---:|---:|---:|",
    `| a dependency tree (root, ${MIDDLE}, ${fmt(MONITORS - 1 - MIDDLE)}), failing at its root | ${fmt(MONITORS * REGIONS.length)} | **${fmt(f.tree.messages)}** | ${fmt(f.tree.alsoAffected)} | **${seconds(f.tree.lastMs)}** |`,
    `| the same number without dependencies | ${fmt(MONITORS * REGIONS.length)} | **${fmt(f.flat.messages)}** | ${fmt(f.flat.alsoAffected)} | **${seconds(f.flat.lastMs)}** |`,
  ].join("\n");
}

async function main(): Promise<void> {
  const figures = await run();
  const markdown = table(figures);
  process.stdout.write(`${markdown}\n`);
  writeDocsBlock(
    "alerting-dependencies",
    "Alert fan-out of a dependency tree (issue 39)",
    "bench/alerting-dependencies.ts",
    [
      `${runOn(`PostgreSQL ${figures.postgres}, Redis ${figures.redis}`)} Command: \`${commandLine("bench:alerting-dependencies")}\`. ${fmt(2 * MONITORS)} HTTP monitors checked every 30 s in ${REGIONS.join(" and ")}, ` +
        `all healthy first (stored, not timed), each linked to a webhook channel of its own posting to a local provider server on 127.0.0.1 ` +
        `(a child process), which answers 200 at once. One control plane (startPipeline, deployment defaults). The tree: the first ` +
        `${fmt(MONITORS)} monitors, a root, ${MIDDLE} depending on it and ${fmt(MONITORS - 1 - MIDDLE)} each depending on one of those ${MIDDLE} ` +
        `(dependsOn, three levels); the root's failing round (HTTP 503 in both regions) is appended to the stream, then at once the other ` +
        `${fmt(MONITORS - 1)} monitors'. Then, in the same run, the failing round of the other ${fmt(MONITORS)} monitors, which have no dependencies. ` +
        `Time: from the first failing results (the root's) being in the stream to the last message's arrival; every monitor is failing ` +
        `before the messages are counted, and any message arriving within 2 s more is counted too.`,
      "",
      markdown,
    ].join("\n"),
  );
  log("wrote the alerting-dependencies block of docs/benchmarks.md");
}

runBenchmark(main);
