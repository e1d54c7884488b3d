import { Queue, Worker, type Job } from "bullmq";
import type { Logger } from "@vigil/logging";
import { closeRedis, closeWorker, logWorkerErrors, watchRedis, type RedisConnection } from "@vigil/queue";

/** A job's failure that says when to try it again: the retry schedule's delay, or the provider's Retry-After. */
export class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`retrying in ${delayMs} ms`);
  }
}

/** A later attempt at one delivery; the first attempts' jobs are the sender's own. */
export type RetryJob = { deliveryId: string };

export interface DeliveryQueueOptions<FirstJob> {
  /** The BullMQ queue's name, under `prefix`. */
  name: string;
  prefix: string;
  /** Jobs in flight at once per control plane. */
  concurrency: number;
  retryDelaysMs: readonly number[];
  /** What the logs call its worker ("notification worker"). */
  workerName: string;
  /** Runs a job; a retry job that throws RetryLater runs again after its delay. */
  run(job: Job<FirstJob | RetryJob>): Promise<void>;
  /** Queues again what a crash left unqueued: once at start, then every `sweepEveryMs`. */
  sweep(): Promise<unknown>;
  sweepEveryMs: number;
}

const jobOptions = { removeOnComplete: true, removeOnFail: true } as const;

/**
 * The queue, worker, retries and sweep that make a sender durable (alert
 * deliveries, subscriber notices): the database row of each delivery decides
 * what is still to send, jobs carry ids and are queued under ids of their
 * own (queueing one twice changes nothing), and a failure worth retrying
 * becomes a job of its own, so that one failing recipient never holds back
 * another.
 */
export class DeliveryQueue<FirstJob> {
  private readonly queue: Queue<FirstJob | RetryJob>;
  private worker: Worker<FirstJob | RetryJob> | undefined;
  /** The worker blocks on a connection of its own; BullMQ leaves a connection it is given open. */
  private workerConnection: RedisConnection | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  /**
   * Attempts in progress: what close() waits for. Not a job's Redis commands (queueing its retry), which wait for
   * Redis while it is away; a retry never queued is queued by the sweep.
   */
  private attempting = 0;

  constructor(
    private readonly connection: RedisConnection,
    private readonly logger: Logger,
    private readonly options: DeliveryQueueOptions<FirstJob>,
  ) {
    this.queue = new Queue(options.name, { connection, prefix: options.prefix });
    // Each command failing while Redis is away would be printed on the console; the outage is logged once (watchRedis).
    this.queue.on("error", () => {});
  }

  /** Queues first attempts, each under `jobId` (again: a job already queued stays as it is). */
  async add(jobs: readonly { name: string; data: FirstJob; jobId: string }[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(jobs.map(({ name, data, jobId }) => ({ name, data, opts: { jobId, ...jobOptions } })));
  }

  /** Queues a later attempt at each delivery after `delayMs`, with the schedule's tries left. */
  async retry(deliveryIds: readonly string[], delayMs: number): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.queue.addBulk(
      deliveryIds.map((deliveryId) => ({
        name: "retry",
        data: { deliveryId },
        // Every try left, plus room for a failure of the worker itself (the database briefly away).
        opts: { jobId: deliveryId, delay: delayMs, attempts: this.options.retryDelaysMs.length + 1, backoff: { type: "retry-schedule" }, ...jobOptions },
      })),
    );
  }

  /** Counts `send` as an attempt in progress while it runs: close() waits for it. */
  async attempt<T>(send: () => Promise<T>): Promise<T> {
    this.attempting++;
    try {
      return await send();
    } finally {
      this.attempting--;
    }
  }

  start(): void {
    this.workerConnection = this.connection.duplicate();
    this.worker = new Worker<FirstJob | RetryJob>(this.options.name, (job) => this.options.run(job), {
      connection: this.workerConnection,
      prefix: this.options.prefix,
      concurrency: this.options.concurrency,
      settings: { backoffStrategy: (_made, _type, error) => (error instanceof RetryLater ? error.delayMs : (this.options.retryDelaysMs[0] ?? 0)) },
    });
    logWorkerErrors(this.worker, this.workerConnection, watchRedis(this.workerConnection, this.logger, this.options.workerName), this.logger);
    const sweep = () => void this.options.sweep().catch((error: unknown) => this.logger.warn({ err: error }, `${this.options.workerName}: queueing pending deliveries failed; retrying`));
    this.sweepTimer = setInterval(sweep, this.options.sweepEveryMs);
    sweep();
  }

  /** Finishes the attempts in progress; waits for Redis only while it answers (closeWorker). */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    if (this.worker && this.workerConnection && (await closeWorker(this.worker, this.workerConnection, () => this.attempting)) === "without Redis") {
      this.logger.warn(`${this.options.workerName}: redis is unreachable and no delivery is in progress: stopping without waiting for it`);
    }
    if (this.workerConnection) await closeRedis(this.workerConnection);
    await this.queue.close();
  }
}
