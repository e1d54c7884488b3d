import type { PrismaClient } from "@vigil/db";
import type { Logger } from "@vigil/logging";
import { DeliveryError, providerOf, type ProviderSettings } from "@vigil/notifications";
import { NOTIFICATION_QUEUE, type RedisConnection } from "@vigil/queue";
import { DeliveryQueue, RetryLater, type RetryJob } from "./delivery-queue";
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
  /** A new link that acknowledges an open incident, for one alert (Acknowledgements.newLink); none when not given. */
  ackLinkFor?: (incidentId: string) => Promise<string | null>;
}

/** A delivery still pending this long after it was written has been queued (or lost with a crash before it was). */
const SWEEP_AGE_MS = 30_000;
const SWEEP_BATCH = 1_000;

/**
 * Sends every (event, channel) delivery durably (delivery-queue.ts).
 * Deliveries are written in the transaction that stored the results causing
 * them; once it has committed, one job per event makes the first attempt at
 * all of its deliveries at once (in an outage that is a third of the queue
 * work of a job per delivery, for three channels a monitor), and each
 * delivery that must be tried again gets a job of its own. Retries follow
 * retry-schedule.ts and honour Retry-After.
 */
export class Deliveries {
  private readonly queue: DeliveryQueue<{ eventId: string }>;
  private readonly store: DeliveryStore;

  constructor(
    connection: RedisConnection,
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    private readonly options: DeliveryOptions,
  ) {
    this.queue = new DeliveryQueue(connection, logger, {
      name: NOTIFICATION_QUEUE,
      prefix: options.prefix,
      concurrency: options.concurrency,
      retryDelaysMs: options.retryDelaysMs,
      workerName: "notification worker",
      run: (job) => this.run(job.data),
      sweep: () => this.sweep(),
      sweepEveryMs: SWEEP_AGE_MS,
    });
    this.store = new DeliveryStore(prisma, options.loadChannels);
  }

  /** Queues the first attempt at the deliveries of these events (again: an event already queued stays as it is). */
  enqueue(eventIds: readonly string[]): Promise<void> {
    return this.queue.add(eventIds.map((eventId) => ({ name: "event", data: { eventId }, jobId: `event-${eventId}` })));
  }

  start(): void {
    this.queue.start();
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
    await this.queue.retry(pending.filter((d) => d.attempts > 0).map((d) => d.id), 0);
    return pending.length;
  }

  /** Finishes the attempts in progress; waits for Redis only while it answers. */
  close(): Promise<void> {
    return this.queue.close();
  }

  private async run(job: { eventId: string } | RetryJob): Promise<void> {
    if ("eventId" in job) {
      const deliveries = await this.store.untriedOf(job.eventId);
      await Promise.all(
        deliveries.map(async (delivery) => {
          const retryInMs = await this.queue.attempt(() => this.sendAndRecord(delivery));
          if (retryInMs !== null) await this.queue.retry([delivery.id], retryInMs);
        }),
      );
      return;
    }
    // Delivered or failed already (a job queued twice), or its channel or monitor is gone.
    const delivery = await this.store.pending(job.deliveryId);
    if (!delivery) return;
    const retryInMs = await this.queue.attempt(() => this.sendAndRecord(delivery));
    if (retryInMs !== null) throw new RetryLater(retryInMs);
  }

  /** Alerts and reminders of an incident still open and unacknowledged carry a link of their own that acknowledges it. */
  private async ackLinkOf(event: StoredEvent): Promise<string | null> {
    const incidentId = (event.details as { incident?: { id: string } }).incident?.id;
    if (!this.options.ackLinkFor || !incidentId || !offersAcknowledgement(event)) return null;
    return this.options.ackLinkFor(incidentId);
  }

  /** Sends a delivery once and records the answer; returns when to try again, or null when done (delivered or failed for good). */
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
