// Vigil as deployed, for bench/peer.ts: a redis-server of its own, the control plane (apps/control-plane/dist/main.js)
// on the embedded database (PGlite in a temporary folder) or on a database of its own on the machine's PostgreSQL,
// and one agent (apps/agent/dist/main.js) for one region, all with their default settings; an HTTP monitor at 30 s
// per target, created through the public API. Its latencies are read from the stored results once the control plane
// has stopped (PGlite's folder is the control plane's alone while it runs).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyMigrations, openDatabase, type DatabaseTarget } from "@vigil/db";
import { monitorConfigToMessage, parseMonitorConfig, type RegionId } from "@vigil/domain";
import { Administration } from "@vigil/control-plane/admin/operations";
import { createClient, VigilError } from "@vigil/client";
import { startAgent } from "../support/agent";
import { startControlPlane } from "../support/control-plane";
import { benchDatabase } from "../support/database";
import { postgresPids } from "../support/machine";
import { startRedisServer } from "../support/redis-server";
import { inParallel, log, sleep } from "../support/run";
import { running, type Reported, type SystemUnderTest } from "./measure";
import type { Targets } from "./targets";

export type Backend = "pglite" | "postgres";

const REGION: RegionId = "hostA-ams";
const DATABASE = "vigil_bench_peer";
/** Creates in flight: the API allows 100 calls a second per key, and a refused one is sent again a second later. */
const CREATE_PARALLELISM = 4;
/** After the window, for the results of its last checks to be stored. */
const SETTLE_MS = 5_000;

/** Migrates `target` and makes a workspace with a write key, as the other benchmarks do; the key. */
async function prepare(target: DatabaseTarget): Promise<string> {
  const db = await openDatabase(target);
  try {
    await applyMigrations(db);
    const admin = new Administration(db.prisma);
    await admin.createWorkspace({ name: "Benchmark", slug: "bench" });
    return (await admin.createApiKey({ workspaceSlug: "bench", scope: "write" })).key;
  } finally {
    await db.close();
  }
}

/** An active HTTP monitor per target, defaults but its URL, period and region; the targets' delays by monitor id. */
async function createMonitors(baseUrl: string, apiKey: string, targets: Targets): Promise<Map<string, number>> {
  const client = createClient({ apiKey, baseUrl });
  const delays = new Map<string, number>();
  await inParallel([...targets.urls.entries()], CREATE_PARALLELISM, async ([i, { url, delayMs }]) => {
    const monitor = monitorConfigToMessage("http", parseMonitorConfig("http", { name: `target ${i}`, url, periodicity: "30s", regions: [REGION], active: true }));
    for (;;) {
      try {
        const created = await client.monitors.createHTTPMonitor({ monitor });
        delays.set(created.monitor!.id, delayMs);
        return;
      } catch (error) {
        if (!(error instanceof VigilError && error.code === "resource_exhausted")) throw error;
        await sleep(1_000);
      }
    }
  });
  return delays;
}

/**
 * Starts it and has it check every target; `stop()` removes all it made, also when the start failed half-way.
 * `nodeArgs`: node flags for the control plane and the agent (CPU profiles).
 */
export async function startVigil(backend: Backend, targets: Targets, nodeArgs: string[] = []): Promise<SystemUnderTest> {
  const undo: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const step of undo.reverse()) await step();
    undo.length = 0;
  };
  try {
    const redis = await startRedisServer();
    undo.push(() => redis.stop());
    const database = await benchDatabase(backend, DATABASE);
    undo.push(() => database.remove());
    const dataDir = database.target.kind === "pglite" ? database.target.dataDir! : mkdtempSync(path.join(os.tmpdir(), "vigil-bench-data-"));
    undo.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const apiKey = await prepare(database.target);
    const controlPlane = await startControlPlane(database.target, dataDir, { REDIS_URL: redis.url, DEFAULT_REGIONS: REGION }, { nodeArgs });
    undo.push(() => controlPlane.stop());
    const agent = await startAgent({ REGION, REDIS_URL: redis.url }, { nodeArgs });
    undo.push(() => agent.stop());
    log(`Vigil on ${backend}: control plane ${controlPlane.child.pid}, agent ${agent.child.pid}, redis-server ${redis.pid}; creating ${targets.urls.length} monitors`);
    const created = Date.now();
    const delays = await createMonitors(`http://127.0.0.1:${controlPlane.port}`, apiKey, targets);
    log(`Vigil on ${backend}: ${delays.size} monitors created in ${((Date.now() - created) / 1000).toFixed(1)} s`);
    return {
      processes: {
        "control plane": running(controlPlane.child.pid!),
        agent: running(agent.child.pid!),
        "redis-server": running(redis.pid),
        ...(backend === "postgres" ? { postgres: () => postgresPids(DATABASE) } : {}),
      },
      threaded: { "control plane": controlPlane.child.pid!, agent: agent.child.pid! },
      async reported(from: number, to: number): Promise<Reported[]> {
        await sleep(SETTLE_MS);
        await agent.stop();
        await controlPlane.stop();
        const db = await openDatabase(database.target);
        try {
          const results = await db.prisma.checkResult.findMany({
            where: { startedAt: { gte: new Date(from), lt: new Date(to) } },
            select: { monitorId: true, latencyMs: true, status: true, error: true },
          });
          const failed = results.filter((result) => result.status === "error");
          if (failed.length > 0) throw new Error(`Vigil on ${backend}: ${failed.length} checks failed, e.g. ${failed[0]!.error}`);
          return results.map(({ monitorId, latencyMs }) => ({ delayMs: delays.get(monitorId)!, latencyMs }));
        } finally {
          await db.close();
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
