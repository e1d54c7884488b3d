import { Queue, Worker, type Job } from "bullmq";
import type { PrismaClient } from "@vigil/db";
import type { Logger } from "@vigil/logging";
import { DeliveryError, providerOf, type ProviderSettings } from "@vigil/notifications";
import { NOTIFICATION_QUEUE, closeRedis, closeWorker, logWorkerErrors, watchRedis, type RedisConnection } from "@vigil/queue";
import { DeliveryStore, type ChannelLoader, type PendingDelivery } from "./delivery-store";
import { startDelivery } from "../metrics/record";
import { messageOfEvent, offersAcknowledgement, type StoredEvent } from "./message";
import { retryDelayMs } from "./retry-schedule";

export interface DeliveryOptions {
  prefix: string;
  /** Jobs in flight at once per control plane (an event's job sends to all its channels at once): I/O-bound, so a slow channel holds one slot, not the queue. */
  concurrency: number;
  retryDelaysMs: readonly number[];
  settings: ProviderSettings;
  loadChannels: ChannelLoader;
  /** How often pending deliveries that never reached the queue are queued again. */
  sweepIntervalMs?: number;
  /** A new link that acknowledges an open incident, for one alert (Acknowledgements.newLink); none when not given. */
  ackLinkFor?: (incidentId: string) => Promise<string | null>;
}

/** The first attempt at every delivery of an event, or a later attempt at one delivery. */
type DeliveryJob = { eventId: string } | { deliveryId: string };

/** A retry job's failure that says when to try again (the schedule's delay or the provider's Retry-After). */
class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`retrying in ${delayMs} ms`);
  }
}

/** A delivery still pending this long after it was written has been queued (or lost with a crash before it was). */
const SWEEP_AGE_MS = 30_000;
const SWEEP_BATCH = 1_000;

const jobOptions = { removeOnComplete: true, removeOnFail: true } as const;

/**
 * Sends every (event, channel) delivery durably. Deliveries are written in
 * the transaction that stored the results causing them; once it has
 * committed, one BullMQ job per event makes the first attempt at all of its
 * deliveries at once (in an outage that is a third of the queue work of a
 * job per delivery, for three channels a monitor), and each delivery that
 * must be tried again gets a job of its own, so a failing channel never holds
 * back another. Jobs carry the id of their event or delivery, so queueing
 * one again changes nothing; a sweep queues what a crash left unqueued. The
 * database row decides: a delivery already delivered or failed is never sent
 * again. Retries follow retry-schedule.ts and honour Retry-After.
 */
export class Deliveries {
  private readonly queue: Queue<DeliveryJob>;
  private worker: Worker<DeliveryJob> | undefined;
  /** The worker blocks on a connection of its own; BullMQ leaves a connection it is given open. */
  private workerConnection: RedisConnection | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  /**
   * Attempts in progress: what close() waits for. Not a job's Redis commands (queueing its retry), which wait for
   * Redis while it is away; a retry never queued is queued by the sweep.
   */
  private attempting = 0;
  private readonly store: DeliveryStore;

  constructor(
    private readonly connection: RedisConnection,
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    private readonly options: DeliveryOptions,
  ) {
    this.queue = new Queue(NOTIFICATION_QUEUE, { connection, prefix: options.prefix });
    // Each command failing while Redis is away would be printed on the console; the outage is logged once (watchRedis).
    this.queue.on("error", () => {});
    this.store = new DeliveryStore(prisma, options.loadChannels);
  }

  /** Queues the first attempt at the deliveries of these events (again: an event already queued stays as it is). */
  async enqueue(eventIds: readonly string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.queue.addBulk(eventIds.map((eventId) => ({ name: "event", data: { eventId }, opts: { jobId: `event-${eventId}`, ...jobOptions } })));
  }

  private async retry(deliveryIds: readonly string[], delayMs: number): Promise<void> {
    await this.queue.addBulk(
      deliveryIds.map((deliveryId) => ({
        name: "retry",
        data: { deliveryId },
        // Every try left, plus room for a failure of the worker itself (the database briefly away).
        opts: { jobId: deliveryId, delay: delayMs, attempts: this.options.retryDelaysMs.length + 1, backoff: { type: "delivery" }, ...jobOptions },
      })),
    );
  }

  start(): void {
    this.workerConnection = this.connection.duplicate();
    this.worker = new Worker<DeliveryJob>(NOTIFICATION_QUEUE, (job) => this.run(job), {
      connection: this.workerConnection,
      prefix: this.options.prefix,
      concurrency: this.options.concurrency,
      settings: {
        backoffStrategy: (_attemptsMade, _type, error) => (error instanceof RetryLater ? error.delayMs : (this.options.retryDelaysMs[0] ?? 0)),
      },
    });
    logWorkerErrors(this.worker, this.workerConnection, watchRedis(this.workerConnection, this.logger, "notification worker"), this.logger);
    const sweep = () =>
      void this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, "queueing pending deliveries failed; retrying"));
    this.sweepTimer = setInterval(sweep, this.options.sweepIntervalMs ?? SWEEP_AGE_MS);
    sweep();
  }

  /** Queues pending deliveries old enough to have been queued already; returns how many. */
  async sweep(now = new Date()): Promise<number> {
    const pending = await this.prisma.notificationDelivery.findMany({
      where: { outcome: "pending", eventId: { not: null }, createdAt: { lt: new Date(now.getTime() - SWEEP_AGE_MS) } },
      select: { id: true, eventId: true, attempts: true },
      orderBy: { createdAt: "asc" },
      take: SWEEP_BATCH,
    });
    await this.enqueue([...new Set(pending.filter((d) => d.attempts === 0).map((d) => d.eventId!))]);
    await this.retry(pending.filter((d) => d.attempts > 0).map((d) => d.id), 0);
    return pending.length;
  }

  /** Finishes the attempts in progress; waits for Redis only while it answers (closeWorker). */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    if (this.worker && this.workerConnection && (await closeWorker(this.worker, this.workerConnection, () => this.attempting)) === "without Redis") {
      this.logger.warn("redis is unreachable and no delivery is in progress: stopping without waiting for it");
    }
    if (this.workerConnection) await closeRedis(this.workerConnection);
    await this.queue.close();
  }

  private async run(job: Job<DeliveryJob>): Promise<void> {
    if ("eventId" in job.data) {
      const deliveries = await this.store.untriedOf(job.data.eventId);
      await Promise.all(
        deliveries.map(async (delivery) => {
          const retryInMs = await this.attempt(delivery);
          if (retryInMs !== null) await this.retry([delivery.id], retryInMs);
        }),
      );
      return;
    }
    // Delivered or failed already (a job queued twice), or its channel or monitor is gone.
    const delivery = await this.store.pending(job.data.deliveryId);
    if (!delivery) return;
    const retryInMs = await this.attempt(delivery);
    if (retryInMs !== null) throw new RetryLater(retryInMs);
  }

  /** Sends a delivery once and records the answer; returns when to try again, or null when done (delivered or failed for good). */
  private async attempt(delivery: PendingDelivery): Promise<number | null> {
    this.attempting++;
    try {
      return await this.sendAndRecord(delivery);
    } finally {
      this.attempting--;
    }
  }

  /** Alerts and reminders of an incident still open and unacknowledged carry a link of their own that acknowledges it. */
  private async ackLinkOf(event: StoredEvent): Promise<string | null> {
    const incidentId = (event.details as { incident?: { id: string } }).incident?.id;
    if (!this.options.ackLinkFor || !incidentId || !offersAcknowledgement(event)) return null;
    return this.options.ackLinkFor(incidentId);
  }

  private async sendAndRecord(delivery: PendingDelivery): Promise<number | null> {
    const { id, channel, event } = delivery;
    const attempts = delivery.attempts + 1;
    const log = { delivery: id, notification: channel.id, provider: channel.type, event: event.type, attempts };
    let failure: DeliveryError | null = null;
    let statusCode: number | null = null;
    const answered = startDelivery(channel.type);
    try {
      const ackLink = await this.ackLinkOf(event);
      ({ statusCode } = await providerOf(channel.type).send(messageOfEvent(event, this.options.settings, ackLink), channel as never, {
        settings: this.options.settings,
      }));
    } catch (error) {
      // Anything but a provider's answer (a bug, an odd library error) is worth another try.
      failure = error instanceof DeliveryError ? error : new DeliveryError(String((error as Error)?.message ?? error), true);
    }
    if (!failure) {
      answered("delivered");
      await this.store.record({ id, outcome: "delivered", attempts, statusCode, error: null, completedAt: new Date() });
      this.logger.info({ ...log, statusCode }, "notification delivered");
      return null;
    }
    const final = !failure.retryable || attempts > this.options.retryDelaysMs.length;
    answered(final ? "failed" : "retrying");
    await this.store.record({
      id,
      outcome: final ? "failed" : "pending",
      attempts,
      statusCode: failure.statusCode,
      error: failure.message,
      completedAt: final ? new Date() : null,
    });
    this.logger.warn({ ...log, statusCode: failure.statusCode, error: failure.message, final }, "notification delivery failed");
    return final ? null : retryDelayMs(this.options.retryDelaysMs, attempts, failure.retryAfterMs);
  }
}
