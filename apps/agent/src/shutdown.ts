import { closeRedis, closeWorker, type RedisConnection } from "@vigil/queue";
import type { Logger } from "@vigil/logging";
import type { CheckWorker } from "./worker";

/**
 * Stops taking jobs, waits for the checks in progress (their results
 * included), then closes the Redis connection. A check's result keeps its id,
 * so a job that runs again elsewhere (Redis never heard it completed) is still
 * stored once.
 */
export async function shutDown(checks: CheckWorker, redis: RedisConnection, logger: Logger): Promise<void> {
  if ((await closeWorker(checks.worker, redis, () => checks.running())) === "without Redis") {
    logger.warn("redis is unreachable and no check is in progress: stopping without waiting for it");
  }
  await closeRedis(redis);
}
