import type { Worker } from "bullmq";
import { DependencyState, type Logger } from "@vigil/logging";
import type { RedisConnection } from "./redis";

/**
 * Logs one component's Redis connection going away and coming back, once each per outage (DependencyState),
 * however many reconnect attempts fail in between. Every connection needs an "error" listener anyway: ioredis
 * prints the errors of a connection without one on stderr, one per attempt.
 */
export function watchRedis(connection: RedisConnection, logger: Logger, component: string): DependencyState {
  const redis = new DependencyState(logger, component, "redis");
  connection.on("error", (error: unknown) => redis.failed(error));
  connection.on("ready", () => redis.succeeded());
  return redis;
}

/** A socket's failure (refused, reset, timed out: Node's system errors name their call), not an answer of Redis. */
const isSocketError = (error: unknown) => error instanceof Error && "syscall" in error;

/**
 * A BullMQ worker reports every failed reconnect of its connection and of the blocking connection it made of it
 * as an error: those are Redis going away, told to `redis` (see watchRedis, which tells its return). Any other
 * error is the worker's own and logged as one.
 */
export function logWorkerErrors(worker: Worker, connection: RedisConnection, redis: DependencyState, logger: Logger): void {
  worker.on("error", (error: Error) => {
    if (connection.status !== "ready" || isSocketError(error)) redis.failed(error);
    else logger.error({ component: redis.component, err: error }, "worker error");
  });
}
