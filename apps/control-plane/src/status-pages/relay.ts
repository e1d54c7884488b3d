import { randomUUID } from "node:crypto";
import { watchRedis, type RedisConnection } from "@vigil/queue";
import type { Logger } from "@vigil/logging";
import type { PageChanges } from "./changes";

/**
 * Carries page changes between the control planes of a deployment over Redis
 * pub/sub, so that an unpublish or an access change made through one of them
 * takes effect at once on every one's cached pages. A message lost while
 * Redis is away leaves the others' copies to expire on their own (5 s).
 * Returns what closes the subscription.
 */
export function relayPageChanges(changes: PageChanges, redis: RedisConnection, prefix: string, logger: Logger): () => void {
  const channel = `${prefix}:status-page-changes`;
  const self = randomUUID();
  // A subscribed connection takes no other commands.
  const subscriber = redis.duplicate();
  watchRedis(subscriber, logger, "status page relay");
  subscriber.on("message", (_channel: string, message: string) => {
    const { pageId, from } = JSON.parse(message) as { pageId: string; from: string };
    if (from !== self) changes.notify(pageId);
  });
  subscriber.subscribe(channel).catch((error: unknown) => logger.warn({ err: error }, "subscribing to status page changes failed"));
  changes.relayThrough((pageId) =>
    void redis.publish(channel, JSON.stringify({ pageId, from: self })).catch((error: unknown) =>
      logger.warn({ err: error, pageId }, "telling other control planes of a status page change failed"),
    ),
  );
  return () => subscriber.disconnect();
}
