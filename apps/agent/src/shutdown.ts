import type { RedisConnection } from "@vigil/queue";
import type { Logger } from "@vigil/logging";
import type { CheckWorker } from "./worker";

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Stops taking jobs, waits for the checks in progress (their results
 * included), then closes the Redis connection.
 *
 * Worker.close() never resolves while Redis is unreachable (BullMQ issue
 * #4656), so it is not awaited alone: once no check is in progress and Redis
 * is down, there is nothing left to lose and shutdown goes on without it.
 * A job whose completion Redis never recorded stalls and runs again
 * elsewhere; its result keeps its id, so it is still stored once.
 */
export async function shutDown(checks: CheckWorker, redis: RedisConnection, logger: Logger): Promise<void> {
  let closed = false;
  const closing = checks.worker.close().then(() => (closed = true));
  while (!closed) {
    await Promise.race([closing, pause(250)]);
    if (!closed && checks.running() === 0 && redis.status !== "ready") {
      logger.warn("redis is unreachable and no check is in progress: stopping without waiting for it");
      break;
    }
  }
  await quit(redis);
}

/** Closes the connection politely, or drops it when Redis does not answer (QUIT would wait for it forever). */
async function quit(redis: RedisConnection): Promise<void> {
  if (redis.status !== "ready") {
    redis.disconnect();
    return;
  }
  const answered = await Promise.race([
    redis.quit().then(
      () => true,
      () => false,
    ),
    pause(2_000).then(() => false),
  ]);
  if (!answered) redis.disconnect();
}
