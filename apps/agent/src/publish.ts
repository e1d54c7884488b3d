import pRetry from "p-retry";
import { DEPENDENCY_RETRY } from "@vigil/domain/dependency-retry";
import type { DependencyState } from "@vigil/logging";
import { encodeResult, type ResultMessage, type RedisConnection } from "@vigil/queue";

export interface PublishOptions {
  /** Told of each failed try and of the success after them: a Redis refusing every result is logged once, not per try. */
  redisState?: DependencyState;
}

/**
 * Appends a result to the results stream, trying again (DEPENDENCY_RETRY) until Redis takes it.
 *
 * The connection (see connectRedis) already holds commands while Redis is
 * unreachable, so the retries are for the errors Redis itself answers with
 * (OOM, MISCONF when it cannot persist, READONLY during a fail-over, LOADING
 * after a restart). The job is only finished after this resolves, so a result
 * is never lost: at worst it is appended twice (a reply lost to a dropped
 * connection, or a job re-run after its agent died) under the same id, which
 * the control plane stores once.
 */
export async function publishResult(redis: RedisConnection, streamKey: string, message: ResultMessage, { redisState }: PublishOptions = {}): Promise<string> {
  const entryId = await pRetry(() => redis.xadd(streamKey, "*", ...encodeResult(message)), {
    ...DEPENDENCY_RETRY,
    retries: Infinity,
    onFailedAttempt: ({ error }) => redisState?.failed(error),
  });
  redisState?.succeeded();
  // XADD with "*" always returns the new entry's id (null only with NOMKSTREAM).
  return entryId ?? "";
}
