import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { parseMonitorConfig } from "@vigil/domain";
import { checkQueueName, decodeResult, resultsStreamKey, type CheckJobData, type ResultMessage } from "@vigil/queue";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { parseExposition, sampleValue } from "../../control-plane/test/support/prometheus";
import { eventually } from "../../../test/eventually";
import { CHECK_MEMORY_BYTES, HEAP_SHARE_FOR_CHECKS } from "../src/in-flight-limit";
import { startAgent, type AgentProcess } from "./support/processes";
import { hangingTarget, slowHttpTarget, type HangingTarget, type SlowTarget } from "./support/targets";

/**
 * An outage storm in small: the built agent, with the in-flight limit it derives
 * itself, holds 200 checks of a target that never answers (ten times the old
 * fixed limit of 20) and still runs healthy checks beside them.
 */
describe("checks in flight during an outage", () => {
  const region = "hostC-us-east4";
  const prefix = testPrefix();
  const redis = new Redis(redisServerUrl(), { maxRetriesPerRequest: null });
  const queue = new Queue<CheckJobData>(checkQueueName(region), { connection: redis, prefix });
  const HANGING = 200;
  const HEALTHY = 20;
  // A known heap makes the derived limit known: memory bounds it unless the open-file limit is tiny.
  const HEAP_MIB = 1024;
  let agent: AgentProcess;
  let hanging: HangingTarget;
  let healthy: SlowTarget;

  const httpJob = (monitorId: string, port: number, timeout: number): CheckJobData => ({
    monitorId,
    kind: "http",
    trigger: "scheduled",
    config: parseMonitorConfig("http", { name: monitorId, url: `http://127.0.0.1:${port}/`, periodicity: "1m", retry: 0, timeout }),
  });
  const addJobs = (jobs: CheckJobData[]) =>
    queue.addBulk(jobs.map((data) => ({ name: "check", data, opts: { removeOnComplete: true, removeOnFail: true } })));
  const results = async (): Promise<ResultMessage[]> =>
    (await redis.xrange(resultsStreamKey(prefix), "-", "+")).map(([, fields]) => decodeResult(fields)!);
  const metrics = async () => parseExposition(await (await fetch(`http://127.0.0.1:${agent.healthPort}/metrics`)).text());

  beforeAll(async () => {
    hanging = await hangingTarget();
    healthy = await slowHttpTarget(5);
    agent = await startAgent({ REGION: region, REDIS_URL: redisServerUrl(), REDIS_PREFIX: prefix, NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}` });
  });
  afterAll(async () => {
    await agent?.stop("SIGKILL");
    await Promise.all([hanging.close(), healthy.close()]);
    await queue.close();
    redis.disconnect();
    await deletePrefix(prefix);
  });

  it("derives its limit from the heap and says so in its log and metrics", async () => {
    const chose = agent.logs().find((entry) => entry.msg === "checks in flight limited")!;
    expect(chose).toMatchObject({ boundBy: "memory", inFlightLimit: chose.byMemory });
    // V8's heap limit is --max-old-space-size plus its young generation.
    const atLeast = Math.floor((HEAP_MIB * 2 ** 20 * HEAP_SHARE_FOR_CHECKS) / CHECK_MEMORY_BYTES);
    expect(chose.inFlightLimit).toBeGreaterThanOrEqual(atLeast);
    expect(chose.inFlightLimit).toBeLessThan(atLeast * 1.25);
    expect(agent.logs().find((entry) => entry.msg === "agent started")).toMatchObject({ concurrency: chose.inFlightLimit });
    expect(sampleValue(await metrics(), "vigil_agent_in_flight_limit", { bound_by: "memory", region })).toBe(chose.inFlightLimit);
  });

  it(`holds ${HANGING} hanging checks at once and still completes healthy ones beside them`, async () => {
    // Long enough that none of them ends during the test.
    await addJobs(Array.from({ length: HANGING }, (_, i) => httpJob(`hanging-${i}`, hanging.port, 110_000)));
    await eventually(() => expect(hanging.open()).toBe(HANGING), 30_000);
    expect(sampleValue(await metrics(), "vigil_agent_checks_in_flight", { region })).toBe(HANGING);

    await addJobs(Array.from({ length: HEALTHY }, (_, i) => httpJob(`healthy-${i}`, healthy.port, 10_000)));
    const done = await eventually(
      async () => {
        const found = await results();
        expect(found).toHaveLength(HEALTHY);
        return found;
      },
      30_000,
    );
    expect(done.every((result) => result.monitorId.startsWith("healthy-") && result.status === "success")).toBe(true);
    // The hanging checks were in flight the whole time: none has ended, none has let go of its connection.
    expect(hanging.open()).toBe(HANGING);
    // A check's result is published before its job is marked completed: the healthy ones leave the active list just after.
    await eventually(async () => expect(await queue.getActiveCount()).toBe(HANGING));
  });
});
