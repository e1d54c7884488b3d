// An agent's side of bench/scheduling.ts, in a process of its own as in production (BENCH_WORKERS of
// them share the region's queue, as several agents of a region do): a BullMQ Worker with the agent's
// settings that runs no check, and notes for every scheduled check which monitor, when it was due and
// when it started. A slot's job goes through the agent's own runSlot (apps/agent/src/slot-runs.ts),
// which starts each member at its moment. Started by bench/scheduling.ts with an IPC channel; not run by hand.
import { SLOT_JOB, checkQueueName, connectRedis, type CheckJobData, type SlotJobData } from "@vigil/queue";
import type { RegionId } from "@vigil/domain";
import { runSlot, type SlotJob } from "@vigil/agent/slot-runs";
import { Worker, type Job } from "bullmq";

export type WorkerRequest =
  | { type: "start"; redisUrl: string; prefix: string; region: RegionId; concurrency: number; monitorIds: string[] }
  | { type: "stop" };

/** Checks since the last message (sent every FLUSH_MS): index of the monitor, when it was due and when it started, in epoch millis. */
export interface WorkerRuns {
  type: "runs";
  monitor: number[];
  slot: number[];
  start: number[];
  /** Plain (not scheduled) jobs run, for the ceiling. */
  drained: number;
}

export type WorkerReply = { type: "ready" } | WorkerRuns | { type: "stopped" };

/** Often enough for the ceiling's timing, which waits for the plain jobs' count. */
const FLUSH_MS = 100;

const fresh = (): WorkerRuns => ({ type: "runs", monitor: [], slot: [], start: [], drained: 0 });
let runs = fresh();
let worker: Worker<CheckJobData | SlotJobData, void> | undefined;

async function start(request: Extract<WorkerRequest, { type: "start" }>): Promise<void> {
  const index = new Map(request.monitorIds.map((id, i) => [id, i]));
  const connection = connectRedis(request.redisUrl, "vigil-bench-agent");
  const processor = async (job: Job<CheckJobData | SlotJobData, void>): Promise<void> => {
    if (job.name !== SLOT_JOB) {
      runs.drained++;
      return;
    }
    await runSlot(job as SlotJob, connection, request.region, request.prefix, async (member, dueAt) => {
      runs.start.push(Date.now());
      runs.monitor.push(index.get(member.check.monitorId) ?? -1);
      runs.slot.push(dueAt);
    });
  };
  worker = new Worker<CheckJobData | SlotJobData, void>(checkQueueName(request.region), processor, {
    connection,
    prefix: request.prefix,
    concurrency: request.concurrency,
    name: "bench-agent",
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 0 },
  });
  worker.on("error", (error) => process.stderr.write(`[bench] worker error: ${error}\n`));
  worker.on("failed", (job, error) => process.stderr.write(`[bench] job ${job?.id} failed: ${error}\n`));
  await worker.waitUntilReady();
}

const flush = () => {
  if (runs.start.length > 0 || runs.drained > 0) process.send!(runs);
  runs = fresh();
};
const flushing = setInterval(flush, FLUSH_MS);

process.on("message", (request: WorkerRequest) => {
  if (request.type === "start") {
    start(request).then(
      () => process.send!({ type: "ready" } satisfies WorkerReply),
      (error: unknown) => {
        process.stderr.write(`[bench] worker failed to start: ${(error as Error).stack}\n`);
        process.exit(1);
      },
    );
    return;
  }
  void (async () => {
    await worker?.close();
    clearInterval(flushing);
    flush();
    // Its Redis connection would keep the process alive.
    process.send!({ type: "stopped" } satisfies WorkerReply, () => process.exit(0));
  })();
});
