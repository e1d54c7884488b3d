import { randomUUID } from "node:crypto";
import { watchRedis, type RedisConnection } from "@vigil/queue";
import type { Logger } from "@vigil/logging";
import type { Changes } from "./changes";

/**
 * Carries changes between the control planes of a deployment over Redis pub/sub, on the channel
 * `<prefix>:<name>`; `component` names its connection in the log (docs/recovery.md). Pub/sub keeps nothing: a message lost while Redis is away is made up for by what each
 * listener does anyway (cached pages expire; overview watches look again every few seconds).
 * Returns what closes the subscription.
 */
export function relayChanges(changes: Changes, { name, component }: { name: string; component: string }, redis: RedisConnection, prefix: string, logger: Logger): () => void {
  const channel = `${prefix}:${name}`;
  const self = randomUUID();
  // A subscribed connection takes no other commands.
  const subscriber = redis.duplicate();
  watchRedis(subscriber, logger, component);
  subscriber.on("message", (_channel: string, message: string) => {
    const { id, from } = JSON.parse(message) as { id: string; from: string };
    if (from !== self) changes.notify(id);
  });
  subscriber.subscribe(channel).catch((error: unknown) => logger.warn({ err: error, channel }, "subscribing to changes failed"));
  changes.relayThrough((id) =>
    void redis.publish(channel, JSON.stringify({ id, from: self })).catch((error: unknown) =>
      logger.warn({ err: error, channel, id }, "telling other control planes of a change failed"),
    ),
  );
  return () => subscriber.disconnect();
}
