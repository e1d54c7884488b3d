import type { RedisConnection } from "./redis";

/** The part of the apps' (pino) logger this needs. */
export interface ConnectionLogger {
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
  info(message: string): void;
}

/** Logs a lost Redis connection once rather than on every reconnect attempt, and its return. */
export function logConnectionChanges(redis: RedisConnection, logger: ConnectionLogger): void {
  let reachable = true;
  redis.on("error", (error: unknown) => {
    if (reachable) logger.warn({ err: error }, "redis is unreachable; reconnecting");
    else logger.debug({ err: error }, "redis is still unreachable");
    reachable = false;
  });
  redis.on("ready", () => {
    if (!reachable) logger.info("redis connection restored");
    reachable = true;
  });
}
