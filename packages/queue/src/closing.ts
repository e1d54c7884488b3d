import { setTimeout as pause } from "node:timers/promises";
import type { Worker } from "bullmq";
import pTimeout from "p-timeout";
import type { RedisConnection } from "./redis";

/** What `work` resolves to, or "late" once `ms` have passed first. */
const within = <T>(work: Promise<T>, ms: number): Promise<T | "late"> => pTimeout(work, { milliseconds: ms, fallback: () => "late" as const });

/** How long a QUIT may take before the connection is dropped instead. */
const QUIT_ANSWER_MS = 2_000;

/**
 * Closes a BullMQ worker after its jobs in progress, without waiting for an unreachable Redis:
 * Worker.close() waits for Redis as long as it is away (BullMQ issue #4656). So the worker takes no new
 * job, its jobs in progress (`inProgress`, counted by the caller: BullMQ's own count waits on Redis too)
 * are waited for here, and the close is forced while Redis is unreachable. Nothing is lost by that: a
 * job whose completion Redis never recorded stalls and runs again elsewhere. Should Redis go away
 * during an unforced close, the close is left to finish in the background. Answers "without Redis" when
 * it did not wait for Redis.
 */
export async function closeWorker(worker: Worker, redis: RedisConnection, inProgress: () => number): Promise<"closed" | "without Redis"> {
  await worker.pause(true);
  while (inProgress() > 0) await pause(250);
  const force = redis.status !== "ready";
  const closing = worker.close(force);
  while ((await within(closing, 250)) === "late") {
    if (redis.status !== "ready") return "without Redis";
  }
  return force ? "without Redis" : "closed";
}

/**
 * Closes a connection politely (QUIT, after the commands it holds), or drops it when Redis does not
 * answer: ioredis keeps a QUIT sent while Redis is unreachable until Redis is back.
 */
export async function closeRedis(redis: RedisConnection): Promise<void> {
  // Closed already: ioredis would arm a 2-s timer for a close event that has come and gone.
  if (redis.status === "end") return;
  if (redis.status !== "ready") {
    redis.disconnect();
    return;
  }
  const answer = await within(
    redis.quit().then(
      () => "answered",
      () => "failed",
    ),
    QUIT_ANSWER_MS,
  );
  if (answer !== "answered") redis.disconnect();
}
