// Alerting during an outage of a shared dependency (issue 8), on PostgreSQL and real Redis.
// 2,000 HTTP monitors checked every 30 s in hostA-ams and hostB-fra, all healthy (stored first, not
// timed). The second 1,000 each have 3 channels of their own (webhook, Slack, ntfy; 3,000 channels),
// pointing at local provider servers on 127.0.0.1; the first 1,000 have none. A startPipeline control
// plane with the deployment's defaults (loadConfig: notification concurrency 100, quorum "half")
// consumes the stream. Two outages, each BENCH_OUTAGE_ROUNDS 30-s rounds of failing results of 1,000
// monitors in both regions appended at once with pipelined XADD (the first round fails the monitors,
// the later ones are the backlog stored meanwhile):
//  1. the monitors without channels: the ingest rate without alerting;
//  2. the monitors with channels: the ingest rate while 3,000 monitor.failed messages go out, and each
//     message's latency from the moment the first failing round was in the stream to its arrival.
// Usage: pnpm bench:alerting, with optional BENCH_OUTAGE_ROUNDS (10), VIGIL_TEST_POSTGRES_URL (else
// scripts/ensure-postgres.sh), VIGIL_TEST_REDIS_URL (else a Redis on port 6391 via scripts/ensure-redis.sh).
// Progress goes to stderr; the table to stdout and into docs/benchmarks.md.
import { performance } from "node:perf_hooks";
import { DEFAULT_POOL_SIZE } from "@vigil/db";
import type { ProviderConfig, RegionId } from "@vigil/domain";
import { newSigningSecret } from "@vigil/notifications";
import type { RedisConnection } from "@vigil/queue";
import type { NotificationRepository } from "@vigil/control-plane/notifications/repository";
import { PROVIDERS, nameOf, preciseNow, type CountingServers, type ProviderName, type Received } from "./alerting/counting-server";
import { onAlertingBench } from "./alerting/environment";
import { round as roundIn, until } from "./alerting/outage-results";
import { log, runBenchmark, sleep } from "./support/run";
import { fmt, percentile, sortedCopy } from "./support/stats";
import { stderrLogger } from "./support/logger";
import { seedActiveMonitors } from "./seed";
import { writeDocsBlock } from "./support/doc";
import { type Cpu, cpuMeter, postgresTicks, redisTicks, runOn, waitForQuietMachine } from "./support/machine";
import { commandLine, numberSetting } from "./support/settings";
import { appendResults } from "./support/stream";

const MONITORS = 1_000;
const REGIONS: RegionId[] = ["hostA-ams", "hostB-fra"];
const ROUNDS = numberSetting("OUTAGE_ROUNDS", 10);
const PERIOD_MS = 30_000;
const EXPECTED_MESSAGES = MONITORS * PROVIDERS.length;
const DATABASE = "vigil_bench_alerting";
/** Channels created at once while seeding. */
const CREATE_CONCURRENCY = 20;

/** Warnings and errors of the control plane go to stderr; stdout is for the table. */
const logger = stderrLogger("warn", "bench-alerting");

/** One 30-s round: every monitor in both regions. */
const round = (monitorIds: string[], slotMillis: number, healthy: boolean) => roundIn(monitorIds, REGIONS, slotMillis, healthy);

// ---- channels --------------------------------------------------------------------------------

/** Channel `provider` of the monitor numbered `index` posts to /<provider>/<index> on its server. */
function providerConfig(provider: ProviderName, servers: CountingServers, index: number): ProviderConfig {
  const url = `${servers.urls[provider]}/${provider}/${index}`;
  if (provider === "webhook") return { type: "webhook", config: { endpoint: url, headers: [] } };
  if (provider === "slack") return { type: "slack", config: { webhookUrl: url } };
  return { type: "ntfy", config: { topic: `service-${index}`, serverUrl: url, token: "tk_bench" } };
}

async function createChannels(
  repository: NotificationRepository,
  workspaceId: string,
  monitors: { id: string; index: number }[],
  servers: CountingServers,
): Promise<void> {
  const writes = monitors.flatMap(({ id, index }) =>
    PROVIDERS.map((provider) => ({
      name: `${provider} for ${nameOf(index)}`,
      provider: providerConfig(provider, servers, index),
      signingSecret: provider === "webhook" ? newSigningSecret() : null,
      monitorIds: [id],
    })),
  );
  for (let from = 0; from < writes.length; from += CREATE_CONCURRENCY) {
    await Promise.all(writes.slice(from, from + CREATE_CONCURRENCY).map((write) => repository.create(workspaceId, write)));
  }
}

// ---- the outages -----------------------------------------------------------------------------

interface Outage {
  results: number;
  /** From the first XADD to the stream being empty (every result stored and acknowledged). */
  ingestSeconds: number;
  /** Wall-clock milliseconds (preciseNow) once the first failing round was in the stream. */
  inStream: number;
  cpu: Cpu;
}

/** Appends ROUNDS failing rounds of `monitorIds` and waits until the control plane has stored them all. */
async function outage(agent: RedisConnection, key: string, monitorIds: string[], firstSlot: number, others: Record<string, () => number>): Promise<Outage> {
  const rounds = Array.from({ length: ROUNDS }, (_, r) => round(monitorIds, firstSlot + r * PERIOD_MS, false));
  await waitForQuietMachine();
  const meter = cpuMeter(others);
  const started = performance.now();
  await appendResults(agent, key, rounds[0]!);
  const inStream = preciseNow();
  for (const backlog of rounds.slice(1)) await appendResults(agent, key, backlog);
  await until(async () => (await agent.xlen(key)) === 0, 10 * 60_000, "the control plane to drain the stream");
  return { results: rounds.flat().length, ingestSeconds: (performance.now() - started) / 1000, inStream, cpu: meter() };
}

interface Figures {
  quiet: Outage;
  alerting: Outage;
  arrivals: number[];
  /** Seconds from the first failing round being in the stream to the last message's arrival. */
  deliverySeconds: number;
  postgres: string;
  redis: string;
}

function run(): Promise<Figures> {
  return onAlertingBench(DATABASE, logger, async ({ db, agent, servers, repository, redisUrl, key, start }) => {
    log(`seeding ${2 * MONITORS} HTTP monitors (30 s, ${REGIONS.join(", ")}) and ${EXPECTED_MESSAGES} channels for the second ${MONITORS}`);
    const monitorIds = await seedActiveMonitors(db.prisma, 2 * MONITORS, { periodicity: "30s", regions: REGIONS });
    const [quietIds, alertingIds] = [monitorIds.slice(0, MONITORS), monitorIds.slice(MONITORS)];
    const { workspaceId } = await db.prisma.monitor.findUniqueOrThrow({ where: { id: monitorIds[0]! } });
    await createChannels(
      repository,
      workspaceId,
      alertingIds.map((id, k) => ({ id, index: MONITORS + k })),
      servers,
    );

    // Every monitor healthy in both regions, then the outages' rounds in the following slots, all in the past.
    const warmSlot = (Math.floor(Date.now() / PERIOD_MS) - ROUNDS - 2) * PERIOD_MS;
    await start(monitorIds, REGIONS, warmSlot);

    const others = { postgres: postgresTicks, redis: redisTicks(new URL(redisUrl).port) };
    log(`outage 1: ${ROUNDS} failing rounds of the ${MONITORS} monitors without channels`);
    const quiet = await outage(agent, key, quietIds, warmSlot + PERIOD_MS, others);
    log(`outage 1: ${fmt(quiet.results)} results stored in ${quiet.ingestSeconds.toFixed(2)} s`);

    log(`outage 2: ${ROUNDS} failing rounds of the ${MONITORS} monitors with 3 channels each`);
    const alerting = await outage(agent, key, alertingIds, warmSlot + PERIOD_MS, others);
    log(`outage 2: ${fmt(alerting.results)} results stored in ${alerting.ingestSeconds.toFixed(2)} s; waiting for the messages`);
    let received = await servers.received();
    const enough = async () => (received = await servers.received()).arrivals.length >= EXPECTED_MESSAGES;
    await until(enough, 5 * 60_000, `${EXPECTED_MESSAGES} messages`, 250);
    // Anything more (a message sent twice, a degraded or a second failed one) would arrive soon after.
    await sleep(2_000);
    received = await servers.received();
    checkMessages(received);
    const delivered = await db.prisma.notificationDelivery.count({ where: { outcome: "delivered", event: "monitor.failed" } });
    const all = await db.prisma.notificationDelivery.count();
    if (delivered !== EXPECTED_MESSAGES || all !== EXPECTED_MESSAGES) {
      throw new Error(`expected ${EXPECTED_MESSAGES} delivered monitor.failed deliveries, found ${delivered} of ${all}`);
    }
    log(`received exactly ${EXPECTED_MESSAGES} messages, one per channel, all recorded as delivered`);

    const latencies = received.arrivals.map((arrival) => arrival.at - alerting.inStream);
    return { quiet, alerting, arrivals: latencies, deliverySeconds: Math.max(...latencies) / 1000 };
  });
}

/** Exactly one message per channel, and nothing refused. */
function checkMessages({ arrivals, rejected }: Received): void {
  if (rejected.length > 0) throw new Error(`${rejected.length} unexpected requests, e.g. ${rejected[0]}`);
  const channels = new Set(arrivals.map((arrival) => `${arrival.path.replace(/\/$/, "")}`));
  if (arrivals.length !== EXPECTED_MESSAGES || channels.size !== EXPECTED_MESSAGES) {
    throw new Error(`expected ${EXPECTED_MESSAGES} messages to as many channels, got ${arrivals.length} to ${channels.size}`);
  }
}

// ---- the report ------------------------------------------------------------------------------

function table(f: Figures): string {
  const sorted = sortedCopy(f.arrivals);
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  const cpu = (c: Cpu) => [c.self, c.postgres!, c.redis!, c.rest].map((v) => v.toFixed(0)).join(" / ");
  const row = (what: string, o: Outage, messages: string) =>
    `| ${what} | ${fmt(o.results)} | ${o.ingestSeconds.toFixed(2)} | **${fmt(o.results / o.ingestSeconds)}** | ${messages} | ${cpu(o.cpu)} |`;
  const p99 = percentile(sorted, 99);
  return [
    "| Outage | Failing results | Stored in (s) | Results stored/s | Messages | CPU % while storing: bench process (Node) / PostgreSQL / Redis / rest |",
    "|---|---:|---:|---:|---|---:|",
    row(`${fmt(MONITORS)} monitors without channels (ingest without alerting)`, f.quiet, "none"),
    row(
      `${fmt(MONITORS)} monitors with 3 channels each`,
      f.alerting,
      `**${fmt(sorted.length)}** monitor.failed; latency first ${seconds(sorted[0]!)} s, p50 ${seconds(percentile(sorted, 50))} s, **p99 ${seconds(p99)} s**, ` +
        `max ${seconds(sorted[sorted.length - 1]!)} s; **${fmt(sorted.length / f.deliverySeconds)} deliveries/s**`,
    ),
    "",
    `p99 ${p99 < 5_000 ? "meets" : "misses"} the goal of 5 s.`,
  ].join("\n");
}

async function main(): Promise<void> {
  const figures = await run();
  const markdown = table(figures);
  process.stdout.write(`${markdown}\n`);
  writeDocsBlock(
    "alerting",
    "Alerting during an outage (issue 8)",
    "bench/alerting.ts",
    [
      `${runOn(`PostgreSQL ${figures.postgres}, Redis ${figures.redis}`)} Command: \`${commandLine("bench:alerting")}\`. ${fmt(2 * MONITORS)} HTTP monitors checked every 30 s in ${REGIONS.join(" and ")}, ` +
        `all healthy first (stored, not timed); the second ${fmt(MONITORS)} each linked to 3 channels of their own (webhook, Slack, ntfy: ` +
        `${fmt(EXPECTED_MESSAGES)} channels) posting to local provider servers on 127.0.0.1 (in a child process of their own), which answer 200 at once. One control plane ` +
        `(startPipeline, deployment defaults: notification concurrency 100, quorum "half", PostgreSQL pool ${DEFAULT_POOL_SIZE}). ` +
        `Each outage: ${ROUNDS} rounds of failing results (HTTP 503) of ${fmt(MONITORS)} monitors in both regions, appended at once with pipelined XADD; ` +
        `the first round fails every monitor, the later ones are the backlog stored meanwhile. Without alerting: the monitors without channels ` +
        `(the same results and status transitions, incidents and events, but no deliveries). Latency: from the first failing round being in the stream ` +
        `to each message's arrival at its provider server; deliveries/s: ` +
        `messages over that time to the last arrival. Exactly ${fmt(EXPECTED_MESSAGES)} monitor.failed messages expected (one per channel) and checked. ` +
        `PostgreSQL backends the pool closes during a window take their CPU ticks with them: its share may then read low, the rest high.`,
      "",
      markdown,
    ].join("\n"),
  );
  log("wrote the alerting block of docs/benchmarks.md");
}

runBenchmark(main);
