import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@vigil/db";
import { closeEmailTransports, type ProviderSettings } from "@vigil/notifications";
import { connectRedis } from "@vigil/queue";
import type { Redis } from "ioredis";
import { Deliveries } from "./alerting/deliveries";
import type { ChannelLoader } from "./alerting/delivery-store";
import type { ControlPlaneConfig } from "./config";
import type { Logger } from "@vigil/logging";
import { MonitorRepository } from "./monitors/repository";
import { ResultsConsumer } from "./results/consumer";
import { pruneResults } from "./results/retention";
import { CheckScheduler } from "./scheduling/scheduler";
import { Statuses } from "./status/statuses";
import { PageChanges } from "./status-pages/changes";
import { relayPageChanges } from "./status-pages/relay";

export type PipelineConfig = Pick<
  ControlPlaneConfig,
  "redisUrl" | "redisPrefix" | "defaultRegions" | "resultRetentionDays" | "reconcileIntervalMs" | "quorum" | "notificationConcurrency" | "retryDelaysMs"
>;

/** What delivering notifications needs from the rest of the control plane. */
export interface NotificationSetup {
  settings: ProviderSettings;
  loadChannels: ChannelLoader;
}

export interface Pipeline {
  scheduler: CheckScheduler;
  statuses: Statuses;
  deliveries: Deliveries;
  /** Status page changes, shared with the deployment's other control planes. */
  pageChanges: PageChanges;
  /** Its Redis connection, for the API's state that control planes share. */
  redis: Redis;
  /** Makes Redis match the database now. */
  reconcile(): Promise<void>;
  stop(): Promise<void>;
}

const PRUNE_INTERVAL_MS = 3_600_000;
const RECONCILE_RETRY_MS = 5_000;

/**
 * The control plane's side of the check pipeline: schedules in Redis kept in
 * line with the database (at start and periodically), results read from the
 * agents' stream, the statuses and notifications they cause, and raw results
 * pruned to the retention.
 */
export async function startPipeline(prisma: PrismaClient, config: PipelineConfig, logger: Logger, notifications: NotificationSetup): Promise<Pipeline> {
  const redis = connectRedis(config.redisUrl, "vigil-control-plane");
  // Blocking stream reads get a connection of their own, so they never delay scheduling commands.
  const streamRedis = redis.duplicate();
  const scheduler = new CheckScheduler(redis, config.redisPrefix, config.defaultRegions);
  const deliveries = new Deliveries(redis, prisma, logger, {
    prefix: config.redisPrefix,
    concurrency: config.notificationConcurrency,
    retryDelaysMs: config.retryDelaysMs,
    ...notifications,
  });
  const statuses = new Statuses(prisma, { defaultRegions: config.defaultRegions, quorum: config.quorum }, (ids) => deliveries.enqueue(ids));
  const consumer = new ResultsConsumer(streamRedis, prisma, logger, {
    prefix: config.redisPrefix,
    rules: statuses.rules,
    onEvents: (ids) => deliveries.enqueue(ids),
    consumer: `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`,
  });
  const repo = new MonitorRepository(prisma);
  const pageChanges = new PageChanges();
  const stopRelay = relayPageChanges(pageChanges, redis, config.redisPrefix, logger);

  const reconcile = async () => {
    const counts = await scheduler.reconcile(await repo.listActive());
    logger.info(counts, "schedules reconciled with the database");
  };
  const safely = (what: string, work: () => Promise<unknown>) => () =>
    work().catch((error: unknown) => logger.error({ err: error }, `${what} failed`));

  // The API must come up even while Redis is unreachable: reconciliation runs
  // in the background, soon again after a failure, then at its interval.
  let reconcileTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const reconcileLoop = async () => {
    let next = config.reconcileIntervalMs;
    try {
      await reconcile();
    } catch (error) {
      logger.error({ err: error }, "reconciling schedules failed; retrying");
      next = Math.min(RECONCILE_RETRY_MS, config.reconcileIntervalMs);
    }
    if (!stopped) reconcileTimer = setTimeout(() => void reconcileLoop(), next);
  };
  void reconcileLoop();
  consumer.start();
  deliveries.start();
  const prune = safely("pruning results", () => pruneResults(prisma, config.resultRetentionDays));
  const pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
  void prune();

  return {
    scheduler,
    statuses,
    deliveries,
    pageChanges,
    redis,
    reconcile,
    async stop() {
      stopped = true;
      clearTimeout(reconcileTimer);
      clearInterval(pruneTimer);
      await consumer.stop();
      await deliveries.close();
      closeEmailTransports();
      await scheduler.close();
      stopRelay();
      streamRedis.disconnect();
      await redis.quit();
    },
  };
}
