import http from "node:http";
import type { AddressInfo } from "node:net";
import { Periodicity, Region } from "@vigil/proto";
import type { RedisTarget } from "@vigil/queue";
import { startAgent, type AgentProcess } from "../../agent/test/support/processes";
import { startTestApi, type TestApi } from "./support/api";
import { eventually } from "../../../test/eventually";
import { startCluster, startSentinelSetup, type ClusterSetup, type SentinelSetup } from "./support/redis-topologies";

/**
 * Production Redis setups: the control plane and a real agent process meet
 * through a master found by Sentinel, and through a Redis Cluster, both
 * started here on loopback ports. A monitor is scheduled, checked, and its
 * result stored, as with a single Redis.
 */
describe("Redis Sentinel and Cluster", () => {
  let hits = 0;
  const target = http.createServer((_req, res) => {
    hits++;
    res.end("ok");
  });
  let targetUrl: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => target.close(() => resolve())));

  /** A control plane and an agent in hostA-ams on `target`, with what closes them. */
  async function startDeployment(target: RedisTarget, prefix: string, agentEnv: NodeJS.ProcessEnv) {
    const api = await startTestApi("postgres", { pipeline: { redis: target, redisPrefix: prefix } });
    let agent: AgentProcess | undefined;
    try {
      agent = await startAgent({ REGION: "hostA-ams", REDIS_URL: undefined, REDIS_PREFIX: prefix, ...agentEnv }, { timeoutMs: 30_000 });
    } catch (error) {
      await api.close();
      throw error;
    }
    const client = api.client((await api.workspace()).write.key);
    return {
      api,
      client,
      async close() {
        await agent.stop();
        await api.close();
      },
    };
  }

  /** Creates a monitor checked every 30 s in hostA-ams, waits for its schedule, checks it now and returns its id once a result is stored. */
  async function scheduleCheckAndStore(api: TestApi, client: ReturnType<TestApi["client"]>): Promise<string> {
    const { monitor } = await client.createHTTPMonitor({
      monitor: { name: "topology", url: targetUrl, periodicity: Periodicity.PERIODICITY_30S, active: true, regions: [Region.HOSTA_AMS] },
    });
    const id = monitor!.id;
    await eventually(async () => expect((await api.pipeline.scheduler.scheduledIn("hostA-ams", id))?.slot.periodicity).toBe("30s"));
    await client.triggerMonitor({ id });
    await resultsStored(api, id, 1);
    return id;
  }

  const resultsStored = (api: TestApi, monitorId: string, atLeast: number) =>
    eventually(async () => {
      const rows = await api.db.prisma.checkResult.findMany({ where: { monitorId } });
      expect(rows.length).toBeGreaterThanOrEqual(atLeast);
      expect(rows.every((r) => r.region === "hostA-ams" && r.status === "success" && r.statusCode === 200)).toBe(true);
    }, 20_000);

  describe("through Sentinel", () => {
    let sentinel: SentinelSetup;
    beforeAll(async () => {
      sentinel = await startSentinelSetup();
    });
    afterAll(() => sentinel?.close());

    it("schedules, checks and stores results, and keeps doing so after a failover", async () => {
      const hitsBefore = hits;
      const deployment = await startDeployment(
        { kind: "sentinel", sentinels: sentinel.sentinels, masterName: sentinel.masterName },
        "vigil-sentinel",
        { REDIS_SENTINELS: sentinel.sentinels.map((s) => `${s.host}:${s.port}`).join(","), REDIS_SENTINEL_NAME: sentinel.masterName },
      );
      try {
        const id = await scheduleCheckAndStore(deployment.api, deployment.client);
        expect(hits).toBeGreaterThan(hitsBefore);

        // Both sides reconnect to the promoted replica, which the sentinel names.
        await sentinel.failover();
        await eventually(() => deployment.client.triggerMonitor({ id }), 20_000);
        await resultsStored(deployment.api, id, 2);
      } finally {
        await deployment.close();
      }
    });
  });

  describe("through Cluster", () => {
    let cluster: ClusterSetup;
    beforeAll(async () => {
      cluster = await startCluster();
    });
    afterAll(() => cluster?.close());

    it("schedules, checks and stores results, with every key of the prefix in one slot", async () => {
      const prefix = "{vigil-cluster}";
      const deployment = await startDeployment({ kind: "cluster", nodes: cluster.nodes }, prefix, {
        REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(","),
      });
      try {
        await scheduleCheckAndStore(deployment.api, deployment.client);
        // Queues, the results stream and counters all carry the hash tag, so one node holds them all.
        const keysByNode = await cluster.keysByNode(`${prefix}*`);
        const holding = keysByNode.filter((keys) => keys.length > 0);
        expect(holding).toHaveLength(1);
        expect(holding[0]).toEqual(expect.arrayContaining([`${prefix}:results`, `${prefix}:checks-hostA-ams:meta`]));
      } finally {
        await deployment.close();
      }
    });
  });
});
