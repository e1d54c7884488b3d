import type { Queue } from "bullmq";
import type { PrismaClient } from "@vigil/db";
import { CHECKS_PER_MINUTE_WINDOW_MS, REGION_IDS, type RegionId } from "@vigil/domain";
import { queueBacklog, type Backlog } from "../scheduling/backlog";

/**
 * An agent is a process consuming its region's check queue now: BullMQ names each worker's Redis
 * connection after the queue and the worker (agent@host:pid), so the connections Redis lists are the
 * agents, and the time since one's last command is when it was last seen. An agent that stopped is
 * gone from the list; one that cannot reach Redis is, as far as the control plane can tell, gone too.
 */
export interface AgentInfo {
  name: string;
  lastSeenAt: Date;
}

export interface RegionInfo extends Backlog {
  region: RegionId;
  agents: AgentInfo[];
  checksPerMinute: number;
}

/** Every region: its agents and queue from Redis, and the workspace's checks per minute from its results. */
export async function listRegions(prisma: PrismaClient, queueOf: (region: RegionId) => Queue, workspaceId: string, now = new Date()): Promise<RegionInfo[]> {
  const since = new Date(now.getTime() - CHECKS_PER_MINUTE_WINDOW_MS);
  const [counts, queues] = await Promise.all([
    prisma.$queryRaw<{ region: string; count: number }[]>`
      SELECT r.region, count(*)::float8 AS count FROM check_results r JOIN monitors m ON m.id = r.monitor_id
      WHERE m.workspace_id = ${workspaceId} AND r.started_at >= ${since} GROUP BY r.region`,
    Promise.all(REGION_IDS.map(async (region) => ({ agents: await agentsOf(queueOf(region), now), backlog: await queueBacklog(queueOf(region)) }))),
  ]);
  const perMinute = new Map(counts.map((c) => [c.region, c.count / (CHECKS_PER_MINUTE_WINDOW_MS / 60_000)]));
  return REGION_IDS.map((region, i) => ({ region, ...queues[i]!.backlog, agents: queues[i]!.agents, checksPerMinute: perMinute.get(region) ?? 0 }));
}

const WORKER_NAME = ":w:";

/** The queue's workers by name, each seen as recently as its most recent connection; none where Redis lists no clients. */
async function agentsOf(queue: Queue, now: Date): Promise<AgentInfo[]> {
  const lastSeen = new Map<string, number>();
  for (const client of (await queue.getWorkers()) as { rawname?: string; idle?: string }[]) {
    const at = client.rawname?.indexOf(WORKER_NAME) ?? -1;
    if (at < 0 || client.idle === undefined) continue;
    const name = client.rawname!.slice(at + WORKER_NAME.length);
    const seen = now.getTime() - Number(client.idle) * 1000;
    lastSeen.set(name, Math.max(seen, lastSeen.get(name) ?? seen));
  }
  return [...lastSeen].map(([name, at]) => ({ name, lastSeenAt: new Date(at) })).sort((a, b) => a.name.localeCompare(b.name));
}
