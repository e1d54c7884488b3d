import { setTimeout as sleep } from "node:timers/promises";
import type { DependencyState } from "@vigil/logging";
import { encodeResult, type ResultMessage, type RedisConnection } from "@vigil/queue";

export interface PublishOptions {
  /** Told of each failed try and of the success after them: a Redis refusing every result is logged once, not per try. */
  redisState?: DependencyState;
  /** Longest wait between tries. */
  maxDelayMs?: number;
}

/**
 * Appends a result to the results stream, trying again until Redis takes it.
 *
 * The connection (see connectRedis) already holds commands while Redis is
 * unreachable, so this loop is for the errors Redis itself answers with
 * (OOM, MISCONF when it cannot persist, READONLY during a fail-over, LOADING
 * after a restart). The job is only finished after this resolves, so a result
 * is never lost: at worst it is appended twice (a reply lost to a dropped
 * connection, or a job re-run after its agent died) under the same id, which
 * the control plane stores once.
 */
export async function publishResult(
  redis: RedisConnection,
  streamKey: string,
  message: ResultMessage,
  { redisState, maxDelayMs = 5_000 }: PublishOptions = {},
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const entryId = await redis.xadd(streamKey, "*", ...encodeResult(message));
      redisState?.succeeded();
      // XADD with "*" always returns the new entry's id (null only with NOMKSTREAM).
      return entryId ?? "";
    } catch (error) {
      redisState?.failed(error);
      await sleep(Math.min(100 * 2 ** (attempt - 1), maxDelayMs));
    }
  }
}
