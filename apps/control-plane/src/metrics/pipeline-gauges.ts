import type { Queue } from "bullmq";
import pTimeout from "p-timeout";
import type { RedisConnection } from "@vigil/queue";
import { REGION_IDS, type RegionId } from "@vigil/domain";
import { RESULTS_GROUP, resultsStreamKey } from "@vigil/queue";
import { queueBacklog } from "../scheduling/backlog";
import { queueDepth, queueOldestJobAge, redisReachable, resultsConsumerLag, resultsPending, resultsStreamLength } from "./definitions";

/** Redis commands wait for a lost connection to come back; a scrape does not wait that long. */
const REDIS_READ_TIMEOUT_MS = 2_000;

/** Where the scrape-time gauges read the check queues and the results stream. */
export interface PipelineSource {
  queue(region: RegionId): Queue;
  redis: Pick<RedisConnection, "xlen" | "xinfo">;
  prefix: string;
}

/**
 * Sets the queue and stream gauges from Redis, at scrape time: one job-count
 * call per region, and two cheap range reads only for regions with work waiting.
 * While Redis does not answer, they keep their last values and vigil_redis_reachable says 0.
 */
export async function updatePipelineGauges(source: PipelineSource): Promise<void> {
  const reads = Promise.all([...REGION_IDS.map((region) => updateQueue(region, source.queue(region))), updateStream(source)]);
  try {
    await pTimeout(reads, { milliseconds: REDIS_READ_TIMEOUT_MS });
    redisReachable.set(1);
  } catch {
    // The reads that fail after the timeout are observed by p-timeout.
    redisReachable.set(0);
  }
}

async function updateQueue(region: RegionId, queue: Queue): Promise<void> {
  const { depth, oldestAgeSeconds } = await queueBacklog(queue);
  queueDepth.set({ region }, depth);
  queueOldestJobAge.set({ region }, oldestAgeSeconds);
}

interface GroupInfo {
  name: string;
  pending: number;
  lag: number | null;
}

async function updateStream({ redis, prefix }: PipelineSource): Promise<void> {
  const key = resultsStreamKey(prefix);
  const [length, groups] = await Promise.all([redis.xlen(key), redis.xinfo("GROUPS", key).catch(() => [])]);
  const group = (groups as unknown[][]).map(groupInfo).find((info) => info.name === RESULTS_GROUP);
  const pending = group?.pending ?? 0;
  resultsStreamLength.set(length);
  resultsPending.set(pending);
  // Stored entries are deleted from the stream, so what is neither pending nor stored is unread:
  // the fallback when Redis cannot tell the group's lag.
  resultsConsumerLag.set(group?.lag ?? Math.max(0, length - pending));
}

/** XINFO GROUPS answers each group as a flat list of field names and values. */
function groupInfo(fields: unknown[]): GroupInfo {
  const info = new Map<string, unknown>();
  for (let i = 0; i + 1 < fields.length; i += 2) info.set(String(fields[i]), fields[i + 1]);
  const lag = info.get("lag");
  return { name: String(info.get("name")), pending: Number(info.get("pending") ?? 0), lag: typeof lag === "number" ? lag : null };
}
