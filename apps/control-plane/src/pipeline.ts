import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@vigil/db";
import { connectRedis } from "@vigil/queue";
import type { ControlPlaneConfig } from "./config";
import type { Logger } from "./logger";
import { MonitorRepository } from "./monitors/repository";
import { ResultsConsumer } from "./results/consumer";
import { pruneResults } from "./results/retention";
import { CheckScheduler } from "./scheduling/scheduler";

export interface Pipeline {
  scheduler: CheckScheduler;
  /** Makes Redis match the database now. */
  reconcile(): Promise<void>;
  stop(): Promise<void>;
}

const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * The control plane's side of the check pipeline: schedules in Redis kept in
 * line with the database (at start and periodically), results read from the
 * agents' stream, and raw results pruned to the retention.
 */
export async function startPipeline(
  prisma: PrismaClient,
  config: Pick<ControlPlaneConfig, "redisUrl" | "redisPrefix" | "defaultRegions" | "resultRetentionDays" | "reconcileIntervalMs">,
  logger: Logger,
): Promise<Pipeline> {
  const redis = connectRedis(config.redisUrl, "vigil-control-plane");
  // Blocking stream reads get a connection of their own, so they never delay scheduling commands.
  const streamRedis = redis.duplicate();
  const scheduler = new CheckScheduler(redis, config.redisPrefix, config.defaultRegions);
  const consumer = new ResultsConsumer(streamRedis, prisma, logger, {
    prefix: config.redisPrefix,
    consumer: `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`,
  });
  const repo = new MonitorRepository(prisma);

  const reconcile = async () => {
    const counts = await scheduler.reconcile(await repo.listActive());
    logger.info(counts, "schedules reconciled with the database");
  };
  const safely = (what: string, work: () => Promise<unknown>) => () =>
    work().catch((error: unknown) => logger.error({ err: error }, `${what} failed`));

  await reconcile();
  consumer.start();
  const timers = [
    setInterval(safely("reconciling schedules", reconcile), config.reconcileIntervalMs),
    setInterval(safely("pruning results", () => pruneResults(prisma, config.resultRetentionDays)), PRUNE_INTERVAL_MS),
  ];
  void safely("pruning results", () => pruneResults(prisma, config.resultRetentionDays))();

  return {
    scheduler,
    reconcile,
    async stop() {
      timers.forEach(clearInterval);
      await consumer.stop();
      await scheduler.close();
      streamRedis.disconnect();
      await redis.quit();
    },
  };
}
