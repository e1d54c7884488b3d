// The server under test, started by bench/api.ts in its own process so that the load generator
// never shares its event loop (or, for PGlite, the database's thread) with it.
import { openDatabase, type DatabaseTarget } from "@vigil/db";
import { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";
import { createLogger } from "@vigil/logging";
// The built control plane, as `node apps/control-plane/dist/main.js` runs it; bench/api.ts starts this
// process with bench/tsconfig.dist.json, so that @vigil/* load from their dist/ too.
import { startPipeline } from "@vigil/control-plane/pipeline";
import { apiPartsOf, startApiServer } from "@vigil/control-plane/server";
import { NotificationRepository } from "@vigil/control-plane/notifications/repository";
import { SecretBox } from "@vigil/control-plane/notifications/secrets";
import { GATHER_MS } from "@vigil/control-plane/results/consumer";
import { providerSettingsFromEnv } from "@vigil/notifications";
import { randomBytes } from "node:crypto";
import { benchPrefix } from "./support/run";
import { answerServerTiming } from "./support/server-timing";

async function main(): Promise<void> {
  const target = JSON.parse(process.env.BENCH_DATABASE ?? "") as DatabaseTarget;
  const db = await openDatabase(target);
  // Request logging would cost more than the handlers being measured: BENCH_SERVER_LOG_LEVEL=info to see each call.
  const logger = createLogger((process.env.BENCH_SERVER_LOG_LEVEL ?? "warn") as "warn", "bench");
  // bench/status-page.ts appends results to the stream this server consumes, and bench/scaling.ts runs
  // two servers on one prefix: they name the prefix, and remove its keys themselves.
  const ownPrefix = process.env.BENCH_REDIS_PREFIX === undefined;
  const redisPrefix = process.env.BENCH_REDIS_PREFIX ?? benchPrefix();
  // bench/subscribers.ts seals webhook subscribers' secrets with the key it names, and names the SMTP server mails go to.
  const secrets = new SecretBox(process.env.BENCH_ENCRYPTION_KEY ? Buffer.from(process.env.BENCH_ENCRYPTION_KEY, "base64") : randomBytes(32));
  const channels = new NotificationRepository(db.prisma, secrets);
  const settings = providerSettingsFromEnv({ ALLOW_PRIVATE_TARGETS: "true", ...(process.env.BENCH_SMTP_URL && { SMTP_URL: process.env.BENCH_SMTP_URL }) }, "http://localhost");
  const pipeline = await startPipeline(
    db.prisma,
    {
      redis: { kind: "standalone", url: redisServerUrl() },
      redisPrefix,
      defaultRegions: ["hostA-ams"],
      resultRetentionDays: 14,
      dailyAggregateRetentionDays: 400,
      auditRetentionDays: 365,
      reconcileIntervalMs: 3_600_000,
      quorum: "half",
      notificationConcurrency: 100,
      ingestLanes: 1,
      ingestGatherMs: GATHER_MS,
      retryDelaysMs: [5_000],
    },
    logger,
    { settings, loadChannels: (ids) => channels.findForDelivery(ids) },
  );
  const api = await startApiServer({
    prisma: db.prisma,
    ...apiPartsOf(pipeline, redisPrefix),
    notifications: { settings, secrets },
    logger,
    port: 0,
    host: "127.0.0.1",
    // The limiter stays in each call's path, as deployed, but a benchmark's load must never meet it.
    rateLimits: { apiCallsPerKeyPerSecond: 1e9, apiCallsPerAddressPerSecond: 1e9, pageViewsPerAddressPerMinute: 1e9 },
  });
  answerServerTiming();
  process.send?.({ port: api.address().port });

  process.once("disconnect", () => {
    void (async () => {
      await api.close();
      await pipeline.stop();
      if (ownPrefix) await deletePrefix(redisPrefix);
      await db.close();
      process.exit(0);
    })();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench server failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
