import type { Worker } from "bullmq";
import type { RedisConnection } from "./redis";

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long a QUIT may take before the connection is dropped instead. */
const QUIT_ANSWER_MS = 2_000;

/**
 * Closes a BullMQ worker after its jobs in progress, without waiting for an unreachable Redis:
 * Worker.close() never resolves while Redis is unreachable (BullMQ issue #4656). Once no job is in
 * progress and Redis is down there is nothing left to lose: a job whose completion Redis never
 * recorded stalls and runs again elsewhere. Answers "gave up" when it stopped waiting for Redis.
 */
export async function closeWorker(worker: Worker, redis: RedisConnection, inProgress: () => number): Promise<"closed" | "gave up"> {
  let closed = false;
  const closing = worker.close().then(() => (closed = true));
  while (!closed) {
    await Promise.race([closing, pause(250)]);
    if (!closed && inProgress() === 0 && redis.status !== "ready") return "gave up";
  }
  return "closed";
}

/**
 * Closes a connection politely (QUIT, after the commands it holds), or drops it when Redis does not
 * answer: ioredis keeps a QUIT sent while Redis is unreachable until Redis is back.
 */
export async function closeRedis(redis: RedisConnection): Promise<void> {
  if (redis.status !== "ready") {
    redis.disconnect();
    return;
  }
  const answered = await Promise.race([
    redis.quit().then(
      () => true,
      () => false,
    ),
    pause(QUIT_ANSWER_MS).then(() => false),
  ]);
  if (!answered) redis.disconnect();
}
