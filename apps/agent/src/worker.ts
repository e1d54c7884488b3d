import { hostname } from "node:os";
import { Worker, type Job } from "bullmq";
import pLimit from "p-limit";
import type { CheckOutcome } from "@vigil/checks";
import {
  SLOT_JOB,
  checkQueueName,
  resultMessage,
  resultsStreamKey,
  scheduledResultId,
  type CheckJobData,
  type RedisConnection,
  type SlotJobData,
} from "@vigil/queue";
import type { AgentConfig } from "./config";
import { DependencyState, type Logger } from "@vigil/logging";
import type { MetricExports } from "./metrics-export";
import { publishResult } from "./publish";
import { startCheck } from "./metrics";
import { runSlot, type SlotJob } from "./slot-runs";

type AgentJob = Job<CheckJobData | SlotJobData, void>;

export interface CheckWorker {
  worker: Worker<CheckJobData | SlotJobData, void>;
  queueName: string;
  /** Checks in progress, including those waiting to publish their result. */
  running(): number;
  /** Whether the worker takes jobs: running, not shutting down, and its Redis connection is up. */
  connected(): boolean;
}

/** How this agent names itself to BullMQ and in exported metrics. */
export const agentName = () => `agent@${hostname()}:${process.pid}`;

/**
 * The id of a triggered check's result. It depends only on the region and the
 * job, so a job that runs twice (its first agent died after publishing, or
 * before the job was marked done) yields the same id and the control plane
 * stores it once. Scheduled checks have theirs from their slot's run
 * (scheduledResultId).
 */
export const resultId = (region: string, jobId: string) => `${region}:${jobId}`;

/**
 * Consumes the region's queue: a triggered check's job is one check, a
 * slot's job the checks of the slot's monitors, each at its moment. At most
 * `inFlightLimit` checks run at once, whatever the jobs. Each result is
 * appended to the results stream before BullMQ completes its job: an agent
 * that dies mid-job leaves it locked, and BullMQ's stalled-job check (on by
 * default) then puts it back for another agent.
 */
export function startCheckWorker(
  config: AgentConfig,
  inFlightLimit: number,
  /** Runs a job's check (on a check thread: check-threads.ts). */
  runCheck: (job: CheckJobData) => Promise<CheckOutcome>,
  connection: RedisConnection,
  metrics: MetricExports,
  logger: Logger,
): CheckWorker {
  const queueName = checkQueueName(config.region);
  const streamKey = resultsStreamKey(config.redisPrefix);
  let running = 0;
  /** Checks due that wait for a place. */
  let waiting = 0;
  let jobs = 0;
  const inFlight = pLimit(inFlightLimit);
  const publishing = new DependencyState(logger, "result publisher", "redis");
  /**
   * While checks wait for a place, the worker takes no more jobs: a slot's job
   * holds many checks, and more of them would wait inside this agent, unseen.
   * Left in the queue they show as backlog (vigil_queue_depth, which scales
   * agents) and go to an agent with room. (Triggered checks never wait: one
   * job each, and no more jobs than places.)
   */
  const takeJobsWhileRoom = () => {
    const wanted = running + waiting > inFlightLimit ? Math.max(1, jobs) : inFlightLimit;
    if (worker.concurrency !== wanted) worker.concurrency = wanted;
  };

  const check = (data: CheckJobData, id: string) => {
    waiting++;
    takeJobsWhileRoom();
    return inFlight(async () => {
      waiting--;
      running++;
      takeJobsWhileRoom();
      try {
        const checked = startCheck(data.kind);
        const outcome = await runCheck(data);
        checked(outcome.status);
        metrics.record(data, outcome);
        await publishResult(connection, streamKey, resultMessage(id, data, config.region, outcome), { redisState: publishing });
        logger.debug({ resultId: id, monitorId: data.monitorId, status: outcome.status }, "check done");
      } finally {
        running--;
        takeJobsWhileRoom();
      }
    });
  };

  // No abort signal: the agent never cuts a check short (a second SIGTERM exits the process), and BullMQ
  // makes an AbortController per job only for processors that take one, whose first listener costs Node
  // about as much CPU as a TCP check.
  const processor = async (job: AgentJob): Promise<void> => {
    if (!job.id) throw new Error("job without an id");
    jobs++;
    try {
      if (job.name === SLOT_JOB) {
        return await runSlot(job as SlotJob, connection, config.region, config.redisPrefix, (member, dueAt) =>
          check(member.check, scheduledResultId(config.region, member.check.monitorId, dueAt)),
        );
      }
      return await check(job.data as CheckJobData, resultId(config.region, job.id));
    } finally {
      jobs--;
    }
  };

  const worker = new Worker<CheckJobData | SlotJobData, void>(queueName, processor, {
    connection,
    prefix: config.redisPrefix,
    // Jobs never outnumber checks (a slot's job holds many, a triggered one one); fewer while the checks have no room.
    concurrency: inFlightLimit,
    name: agentName(),
    // Whoever adds jobs says to remove them when done; these defaults apply when
    // a job does not say, so finished jobs never pile up in Redis.
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 0 },
    ...(config.lockDurationMs !== undefined && { lockDuration: config.lockDurationMs }),
    ...(config.stalledIntervalMs !== undefined && { stalledInterval: config.stalledIntervalMs }),
  });

  worker.on("failed", (job, error) => logger.warn({ jobId: job?.id, err: error }, "check job failed"));
  worker.on("stalled", (jobId) => logger.warn({ jobId }, "stalled check job put back in the queue"));

  return {
    worker,
    queueName,
    running: () => running,
    connected: () => worker.isRunning() && worker.closing === undefined && connection.status === "ready",
  };
}
