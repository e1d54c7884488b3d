import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { parseMonitorConfig } from "@vigil/domain";
import { checkQueueName, type CheckJobData } from "@vigil/queue";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { parseExposition, sampleValue } from "../../control-plane/test/support/prometheus";
import { eventually } from "../../../test/eventually";
import { startAgent, type AgentProcess } from "./support/processes";
import { closedPort, tcpTarget, type Target } from "./support/targets";

/** The built agent's /metrics on its health port, against a real Redis. */
describe("the agent's Prometheus metrics", () => {
  const region = "hostB-fra";
  const prefix = testPrefix();
  const redis = new Redis(redisServerUrl(), { maxRetriesPerRequest: null });
  const queue = new Queue<CheckJobData>(checkQueueName(region), { connection: redis, prefix });
  let agent: AgentProcess;
  let target: Target;

  const tcpJob = (monitorId: string, port: number): CheckJobData => ({
    monitorId,
    kind: "tcp",
    trigger: "manual",
    config: parseMonitorConfig("tcp", { name: monitorId, uri: `127.0.0.1:${port}`, periodicity: "1m", retry: 0, timeout: 2000 }),
  });
  const metrics = async () => {
    const res = await fetch(`http://127.0.0.1:${agent.healthPort}/metrics`);
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  };

  beforeAll(async () => {
    target = await tcpTarget();
    agent = await startAgent({ REGION: region, REDIS_URL: redisServerUrl(), REDIS_PREFIX: prefix });
  });
  afterAll(async () => {
    await agent.stop();
    await target.close();
    await queue.close();
    redis.disconnect();
    await deletePrefix(prefix);
  });

  it("starts with every kind's check series at zero, labelled with the region", async () => {
    const samples = await metrics();
    for (const kind of ["http", "tcp", "dns", "grpc"]) {
      for (const status of ["success", "degraded", "error"]) expect(sampleValue(samples, "vigil_checks_total", { kind, status, region })).toBe(0);
      expect(sampleValue(samples, "vigil_check_duration_seconds_count", { kind, region })).toBe(0);
    }
  });

  it("counts each check run by kind, region and status", async () => {
    await queue.add("check", tcpJob("open", target.port), { removeOnComplete: true, removeOnFail: true });
    await queue.add("check", tcpJob("closed", await closedPort()), { removeOnComplete: true, removeOnFail: true });
    const samples = await eventually(async () => {
      const now = await metrics();
      expect(sampleValue(now, "vigil_check_duration_seconds_count", { kind: "tcp", region })).toBe(2);
      return now;
    });
    expect(sampleValue(samples, "vigil_checks_total", { kind: "tcp", region, status: "success" })).toBe(1);
    expect(sampleValue(samples, "vigil_checks_total", { kind: "tcp", region, status: "error" })).toBe(1);
  });

  it("serves /metrics and /healthz only, beside each other", async () => {
    expect((await fetch(`http://127.0.0.1:${agent.healthPort}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${agent.healthPort}/metrics/extra`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${agent.healthPort}/metrics`, { method: "POST" })).status).toBe(404);
  });
});
