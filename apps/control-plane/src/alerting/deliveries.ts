import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { PrismaClient } from "@vigil/db";
import type { Logger } from "@vigil/logging";
import { DeliveryError, providerOf, type ProviderSettings } from "@vigil/notifications";
import { NOTIFICATION_QUEUE } from "@vigil/queue";
import { DeliveryStore, type ChannelLoader } from "./delivery-store";
import { messageOfEvent } from "./message";
import { retryDelayMs } from "./retry-schedule";

export interface DeliveryOptions {
  prefix: string;
  /** Deliveries in flight at once per control plane: I/O-bound, so a slow channel holds one slot, not the queue. */
  concurrency: number;
  retryDelaysMs: readonly number[];
  settings: ProviderSettings;
  loadChannels: ChannelLoader;
  /** How often pending deliveries that never reached the queue are queued again. */
  sweepIntervalMs?: number;
}

interface DeliveryJob {
  deliveryId: string;
}

/** A delivery still pending this long after it was written has been queued (or lost with a crash before it was). */
const SWEEP_AGE_MS = 30_000;
const SWEEP_BATCH = 1_000;

/**
 * Sends every (event, channel) delivery durably. Deliveries are written in
 * the transaction that stored the results causing them, then queued in
 * BullMQ under their own id, so a delivery is queued once however often it
 * is queued again; a sweep queues the ones a crash left between the two. The
 * database row decides: a delivery already delivered or failed is never sent
 * again. Retries follow retry-schedule.ts and honour Retry-After.
 */
export class Deliveries {
  private readonly queue: Queue<DeliveryJob>;
  private worker: Worker<DeliveryJob> | undefined;
  /** The worker blocks on a connection of its own; BullMQ leaves a connection it is given open. */
  private workerConnection: Redis | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly store: DeliveryStore;

  constructor(
    private readonly connection: Redis,
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    private readonly options: DeliveryOptions,
  ) {
    this.queue = new Queue(NOTIFICATION_QUEUE, { connection, prefix: options.prefix });
    this.store = new DeliveryStore(prisma, options.loadChannels);
  }

  /** Queues deliveries (again: a delivery already queued stays as it is). */
  async enqueue(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.queue.addBulk(
      ids.map((deliveryId) => ({
        name: "deliver",
        data: { deliveryId },
        opts: {
          jobId: deliveryId,
          attempts: this.options.retryDelaysMs.length + 1,
          backoff: { type: "delivery" },
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }

  start(): void {
    this.workerConnection = this.connection.duplicate();
    this.worker = new Worker<DeliveryJob>(NOTIFICATION_QUEUE, (job) => this.deliver(job), {
      connection: this.workerConnection,
      prefix: this.options.prefix,
      concurrency: this.options.concurrency,
      settings: {
        backoffStrategy: (attemptsMade, _type, error) =>
          retryDelayMs(this.options.retryDelaysMs, attemptsMade, error instanceof DeliveryError ? error.retryAfterMs : null),
      },
    });
    this.worker.on("error", (error) => this.logger.error({ err: error }, "notification worker error"));
    const sweep = () =>
      void this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, "queueing pending deliveries failed; retrying"));
    this.sweepTimer = setInterval(sweep, this.options.sweepIntervalMs ?? SWEEP_AGE_MS);
    sweep();
  }

  /** Queues pending deliveries old enough to have been queued already; returns how many. */
  async sweep(now = new Date()): Promise<number> {
    const pending = await this.prisma.notificationDelivery.findMany({
      where: { outcome: "pending", eventId: { not: null }, createdAt: { lt: new Date(now.getTime() - SWEEP_AGE_MS) } },
      select: { id: true },
      orderBy: { createdAt: "asc" },
      take: SWEEP_BATCH,
    });
    await this.enqueue(pending.map((d) => d.id));
    return pending.length;
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.worker?.close();
    this.workerConnection?.disconnect();
    await this.queue.close();
  }

  private async deliver(job: Job<DeliveryJob>): Promise<void> {
    const delivery = await this.store.pending(job.data.deliveryId);
    // Delivered or failed already (a job queued twice), or its channel or monitor is gone.
    if (!delivery) return;
    const { id, channel, event } = delivery;
    const attempts = delivery.attempts + 1;
    const lastTry = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const log = { delivery: id, notification: channel.id, provider: channel.type, event: event.type, attempts };
    try {
      const { statusCode } = await providerOf(channel.type).send(messageOfEvent(event, this.options.settings), channel as never, {
        settings: this.options.settings,
      });
      await this.store.record({ id, outcome: "delivered", attempts, statusCode, error: null, completedAt: new Date() });
      this.logger.info({ ...log, statusCode }, "notification delivered");
    } catch (error) {
      // Anything but a provider's answer (a bug, an odd library error) is worth another try.
      const failure = error instanceof DeliveryError ? error : new DeliveryError(String((error as Error)?.message ?? error), true);
      const final = !failure.retryable || lastTry;
      await this.store.record({
        id,
        outcome: final ? "failed" : "pending",
        attempts,
        statusCode: failure.statusCode,
        error: failure.message,
        completedAt: final ? new Date() : null,
      });
      this.logger.warn({ ...log, statusCode: failure.statusCode, error: failure.message, final }, "notification delivery failed");
      if (!failure.retryable) throw new UnrecoverableError(failure.message);
      throw failure;
    }
  }
}
