import { hostname } from "node:os";
import { Worker, type Job } from "bullmq";
import type { CheckOutcome } from "@vigil/checks";
import { checkQueueName, resultMessage, resultsStreamKey, type CheckJobData, type RedisConnection } from "@vigil/queue";
import type { AgentConfig } from "./config";
import type { Logger } from "@vigil/logging";
import type { MetricExports } from "./metrics-export";
import { publishResult } from "./publish";
import { startCheck } from "./metrics";

export interface CheckWorker {
  worker: Worker<CheckJobData, void>;
  queueName: string;
  /** Checks in progress, including those waiting to publish their result. */
  running(): number;
  /** Whether the worker takes jobs: running, not shutting down, and its Redis connection is up. */
  connected(): boolean;
}

/** How this agent names itself to BullMQ and in exported metrics. */
export const agentName = () => `agent@${hostname()}:${process.pid}`;

/**
 * The id of a job's result. It depends only on the region and the job, so a
 * job that runs twice (its first agent died after publishing, or before the
 * job was marked done) yields the same id and the control plane stores it once.
 */
export const resultId = (region: string, jobId: string) => `${region}:${jobId}`;

/**
 * Consumes the region's queue, up to `inFlightLimit` jobs at once: runs each
 * job's check, appends the result to the results stream, and only then lets
 * BullMQ complete the job. An agent that dies mid-check leaves the job
 * locked; BullMQ's stalled-job check (on by default) then puts it back for
 * another agent.
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

  // No abort signal: the agent never cuts a check short (a second SIGTERM exits the process), and BullMQ
  // makes an AbortController per job only for processors that take one, whose first listener costs Node
  // about as much CPU as a TCP check.
  const processor = async (job: Job<CheckJobData, void>): Promise<void> => {
    if (!job.id) throw new Error("job without an id");
    running++;
    try {
      const checked = startCheck(job.data.kind);
      const outcome = await runCheck(job.data);
      checked(outcome.status);
      metrics.record(job.data, outcome);
      const message = resultMessage(resultId(config.region, job.id), job.data, config.region, outcome);
      await publishResult(connection, streamKey, message, {
        onRetry: (error, attempt, delayMs) =>
          logger.warn({ jobId: job.id, attempt, delayMs, err: error }, "publishing a result failed; trying again"),
      });
      logger.debug({ jobId: job.id, monitorId: job.data.monitorId, status: outcome.status }, "check done");
    } finally {
      running--;
    }
  };

  const worker = new Worker<CheckJobData, void>(queueName, processor, {
    connection,
    prefix: config.redisPrefix,
    concurrency: inFlightLimit,
    name: agentName(),
    // Whoever adds jobs says to remove them when done; these defaults apply when
    // a job does not say, so finished jobs never pile up in Redis.
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 0 },
    ...(config.lockDurationMs !== undefined && { lockDuration: config.lockDurationMs }),
    ...(config.stalledIntervalMs !== undefined && { stalledInterval: config.stalledIntervalMs }),
  });

  // While Redis is down every reconnect attempt fails on each of the worker's
  // connections; the outage itself is logged once (logConnectionChanges).
  worker.on("error", (error) =>
    connection.status === "ready" ? logger.error({ err: error }, "worker error") : logger.debug({ err: error }, "worker error"),
  );
  worker.on("failed", (job, error) => logger.warn({ jobId: job?.id, err: error }, "check job failed"));
  worker.on("stalled", (jobId) => logger.warn({ jobId }, "stalled check job put back in the queue"));

  return {
    worker,
    queueName,
    running: () => running,
    connected: () => worker.isRunning() && worker.closing === undefined && connection.status === "ready",
  };
}
