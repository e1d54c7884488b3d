import { Redis } from "ioredis";

/**
 * A Redis connection for BullMQ and the results stream. Commands wait for a
 * lost connection to come back instead of failing, so an outage delays
 * results rather than losing them.
 */
export function connectRedis(url: string, name: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
}
