// What the alerting benches run on: a fresh PostgreSQL database with the migrations, real Redis, the counting provider
// servers in a child process, and a startPipeline control plane with the deployment's defaults started once the
// monitors are seeded and healthy.
import { randomBytes } from "node:crypto";
import { applyMigrations, openDatabase, type Database } from "@vigil/db";
import type { RegionId } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import { connectRedis, resultsStreamKey, type RedisConnection } from "@vigil/queue";
import { loadConfig, type ControlPlaneConfig } from "@vigil/control-plane/config";
import { NotificationRepository } from "@vigil/control-plane/notifications/repository";
import { SecretBox } from "@vigil/control-plane/notifications/secrets";
import { startPipeline } from "@vigil/control-plane/pipeline";
import { storeResults } from "@vigil/control-plane/results/store";
import { dropDatabase, recreateDatabase } from "@vigil/local-servers/postgres";
import { deletePrefix, redisServerUrl } from "@vigil/local-servers/redis";
import { log, benchPrefix } from "../support/run";
import { startCountingServers, type CountingServers } from "./counting-server";
import { round } from "./outage-results";

/** Results stored at once in the warm-up. */
const STORE_BATCH = 500;

export interface AlertingBench {
  db: Database;
  agent: RedisConnection;
  servers: CountingServers;
  config: ControlPlaneConfig;
  repository: NotificationRepository;
  redisUrl: string;
  /** The results stream the control plane reads. */
  key: string;
  /** Stores a healthy round of every monitor in `regions` at `slot` (not timed), then starts the control plane. */
  start(monitorIds: string[], regions: readonly RegionId[], slot: number): Promise<void>;
}

/** Runs `work` on a fresh AlertingBench, and answers what it answered with the servers' versions; everything goes after. */
export async function onAlertingBench<T>(database: string, logger: Logger, work: (bench: AlertingBench) => Promise<T>): Promise<T & { postgres: string; redis: string }> {
  const redisUrl = redisServerUrl();
  const prefix = benchPrefix();
  const url = await recreateDatabase(database);
  const db = await openDatabase({ kind: "postgres", url });
  const agent = connectRedis(redisUrl, "vigil-bench-agent");
  const servers = await startCountingServers();
  let stopPipeline = async () => {};
  try {
    await applyMigrations(db);
    const config = loadConfig({ DATABASE_URL: url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PUBLIC_URL: "https://vigil.bench", ALLOW_PRIVATE_TARGETS: "true" });
    const repository = new NotificationRepository(db.prisma, new SecretBox(randomBytes(32)));
    const start = async (monitorIds: string[], regions: readonly RegionId[], slot: number) => {
      log("warm-up: storing a healthy round of every monitor");
      const rules = { defaultRegions: config.defaultRegions, quorum: config.quorum };
      const warm = round(monitorIds, regions, slot, true);
      for (let from = 0; from < warm.length; from += STORE_BATCH) await storeResults(db.prisma, warm.slice(from, from + STORE_BATCH), rules);
      const healthy = await db.prisma.monitor.count({ where: { status: "active" } });
      if (healthy !== monitorIds.length) throw new Error(`expected ${monitorIds.length} healthy monitors after the warm-up, found ${healthy}`);
      await db.prisma.$executeRawUnsafe("ANALYZE");
      const pipeline = await startPipeline(db.prisma, config, logger, {
        settings: config.providerSettings,
        loadChannels: (ids) => repository.findForDelivery(ids),
      });
      stopPipeline = () => pipeline.stop();
      await pipeline.reconcile();
    };
    const answer = await work({ db, agent, servers, config, repository, redisUrl, key: resultsStreamKey(prefix), start });
    return {
      ...answer,
      postgres: (await db.prisma.$queryRawUnsafe<{ server_version: string }[]>("SHOW server_version"))[0]!.server_version,
      redis: /redis_version:(\S+)/.exec(await agent.info("server"))?.[1] ?? "unknown",
    };
  } finally {
    await stopPipeline();
    agent.disconnect();
    await servers.close();
    await deletePrefix(prefix);
    await db.close();
    await dropDatabase(database);
  }
}
