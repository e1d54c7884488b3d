import { v7 as uuidv7 } from "uuid";
import type { Prisma, PrismaClient } from "@vigil/db";
import { SUBSCRIBERS, noticeReaches, type IncidentStatus, type SubscriberNoticeKind } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import { DeliveryError, type ProviderSettings } from "@vigil/notifications";
import type { RedisConnection } from "@vigil/queue";
import { DeliveryQueue, RetryLater, type RetryJob } from "../../alerting/delivery-queue";
import { retryDelayMs } from "../../alerting/retry-schedule";
import { incidentUrl, pageUrl } from "../public/addresses";
import { subscriptionLink } from "../public/subscribe";
import { pageWords } from "../public/language";
import type { Words } from "../public/words";
import { RecipientRefused, sendNoticeMail } from "./mail";
import type { SubscriberTokens } from "./tokens";
import { GONE, sendNoticeWebhook } from "./webhooks";
import type { SecretBox } from "../../notifications/secrets";

/** What subscribers of a page are told: an incident's or a maintenance's news. */
export interface SubscriberNotice {
  kind: SubscriberNoticeKind;
  /** The incident's or the maintenance window's id. */
  subjectId: string;
  title: string;
  /** Markdown: the update's or the maintenance's message. */
  message: string;
  /** The incident's status, or the maintenance's (scheduled, in_progress, completed). */
  status: string;
  /** The page's components it names: subscribers of other components are not told. */
  componentIds: readonly string[];
  /** An incident's own page is linked; a maintenance links the page. */
  incidentId?: string;
}

/** A notice's deliveries as written, to queue once the transaction that wrote them has committed. */
export interface WrittenNotice {
  noticeId: string;
  deliveryIds: readonly string[];
}

/**
 * How an incident's or a maintenance's news reaches the page's subscribers:
 * written in the transaction that stores the change it tells of (both or
 * neither), then queued once that has committed.
 */
export interface SubscriberNoticeSink {
  /** Writes the notice and a delivery per subscriber it reaches in `tx`; null while the page takes no subscriptions. */
  write(tx: Prisma.TransactionClient, pageId: string, notice: SubscriberNotice): Promise<WrittenNotice | null>;
  /** Queues committed notices' deliveries. Never rejects: what it could not queue, the sweep queues. */
  queue(written: readonly (WrittenNotice | null)[]): Promise<void>;
}

export interface SubscriberNoticeOptions {
  prefix: string;
  settings: ProviderSettings;
  tokens: SubscriberTokens;
  /** Opens webhook subscribers' signing secrets. */
  secrets: SecretBox;
  /** Batch jobs in flight at once per control plane. */
  concurrency: number;
  retryDelaysMs: readonly number[];
}

/** The first attempt at a batch of a notice's deliveries. */
type BatchJob = { deliveryIds: string[] };

const QUEUE = "status-page-notices";
/**
 * A delivery still pending this long was lost by a crash (or is queued behind a
 * large fan-out: 10,000 mails take about a minute), and is queued again.
 */
const SWEEP_AGE_MS = 600_000;
const SWEEP_BATCH = 1_000;

const deliveryInclude = {
  subscriber: true,
  notice: { include: { page: { select: { id: true, title: true, slug: true, customDomain: true, language: true } } } },
} as const satisfies Prisma.StatusPageNoticeDeliveryInclude;
type PendingDelivery = Prisma.StatusPageNoticeDeliveryGetPayload<{ include: typeof deliveryInclude }>;

/** What an attempt came to. */
type Outcome = { kind: "delivered" } | { kind: "ended"; reason: string } | { kind: "failed"; error: DeliveryError };

/** Subject lines by what happened, in the page's words. */
function subjectOf(w: Words, notice: { kind: string; title: string; status: string }): string {
  const { title } = notice;
  switch (notice.kind as SubscriberNoticeKind) {
    case "incident.created":
      return w.t("subscribe.incidentCreated", { title });
    case "incident.updated":
      return w.t("subscribe.incidentUpdated", { title, status: w.incidentStatus(notice.status as IncidentStatus) });
    case "incident.resolved":
      return w.t("subscribe.incidentResolved", { title });
    case "maintenance.scheduled":
      return w.t("subscribe.maintenanceScheduled", { title });
    case "maintenance.started":
      return w.t("subscribe.maintenanceStarted", { title });
    case "maintenance.completed":
      return w.t("subscribe.maintenanceCompleted", { title });
  }
}

/**
 * Tells a page's subscribers of its incidents and maintenance, durably, as
 * alert deliveries are (alerting/delivery-queue.ts): a notice and a delivery
 * row per subscriber it reaches are written with the change they tell of;
 * jobs carrying delivery ids (one per SUBSCRIBERS.batchSize subscribers, so
 * that thousands are reached by a few jobs over the pooled SMTP transport)
 * make the first attempt; each failure worth retrying gets a job of its own
 * on retry-schedule.ts. An SMTP server refusing the recipient for good (5xx)
 * ends that subscription, as a webhook answering 410 does.
 */
export class SubscriberNotices implements SubscriberNoticeSink {
  private readonly jobs: DeliveryQueue<BatchJob>;

  constructor(
    connection: RedisConnection,
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
    private readonly options: SubscriberNoticeOptions,
  ) {
    this.jobs = new DeliveryQueue(connection, logger, {
      name: QUEUE,
      prefix: options.prefix,
      concurrency: options.concurrency,
      retryDelaysMs: options.retryDelaysMs,
      workerName: "status page notice worker",
      run: (job) => this.run(job.data),
      sweep: () => this.sweep(),
      sweepEveryMs: SWEEP_AGE_MS / 10,
    });
  }

  async write(tx: Prisma.TransactionClient, pageId: string, notice: SubscriberNotice): Promise<WrittenNotice | null> {
    const page = await tx.statusPage.findUnique({ where: { id: pageId }, select: { subscriptionsEnabled: true, slug: true, customDomain: true } });
    if (!page?.subscriptionsEnabled) return null;
    const subscribers = await tx.statusPageSubscriber.findMany({ where: { pageId, confirmedAt: { not: null } }, select: { id: true, kind: true, componentIds: true } });
    // Webhooks first: a batch of them takes a moment, mail goes at the SMTP server's pace, and jobs run in order.
    const reached = subscribers
      .filter((s) => noticeReaches(s.componentIds, notice.componentIds))
      .sort((a, b) => Number(a.kind !== "webhook") - Number(b.kind !== "webhook"));
    const url = pageUrl(page, this.options.settings.publicUrl);
    const noticeId = uuidv7();
    const deliveries = reached.map((s) => ({ id: uuidv7(), noticeId, subscriberId: s.id }));
    await tx.statusPageNotice.create({
      data: {
        id: noticeId,
        pageId,
        kind: notice.kind,
        subjectId: notice.subjectId,
        title: notice.title,
        message: notice.message,
        status: notice.status,
        link: notice.incidentId ? incidentUrl(url, notice.incidentId) : url,
        componentIds: [...notice.componentIds],
      },
    });
    await tx.statusPageNoticeDelivery.createMany({ data: deliveries });
    this.logger.info({ pageId, notice: noticeId, kind: notice.kind, subscribers: deliveries.length }, "status page notice written");
    return { noticeId, deliveryIds: deliveries.map((d) => d.id) };
  }

  async queue(written: readonly (WrittenNotice | null)[]): Promise<void> {
    const jobs = written.flatMap((notice) => {
      if (!notice) return [];
      const batches: string[][] = [];
      for (let i = 0; i < notice.deliveryIds.length; i += SUBSCRIBERS.batchSize) batches.push(notice.deliveryIds.slice(i, i + SUBSCRIBERS.batchSize));
      return batches.map((deliveryIds, i) => ({ name: "batch", data: { deliveryIds }, jobId: `notice-${notice.noticeId}-${i}` }));
    });
    await this.jobs.add(jobs).catch((error: unknown) => this.logger.warn({ err: error }, "status page notices not queued; the sweep queues them"));
  }

  start(): void {
    this.jobs.start();
  }

  /** Queues pending deliveries old enough to have been lost; returns how many. */
  async sweep(now = new Date()): Promise<number> {
    const pending = await this.prisma.statusPageNoticeDelivery.findMany({
      where: { outcome: "pending", createdAt: { lt: new Date(now.getTime() - SWEEP_AGE_MS) } },
      select: { id: true },
      orderBy: { createdAt: "asc" },
      take: SWEEP_BATCH,
    });
    await this.jobs.retry(pending.map((d) => d.id), 0);
    return pending.length;
  }

  close(): Promise<void> {
    return this.jobs.close();
  }

  private pending(ids: readonly string[]): Promise<PendingDelivery[]> {
    return this.prisma.statusPageNoticeDelivery.findMany({ where: { id: { in: [...ids] }, outcome: "pending" }, include: deliveryInclude });
  }

  private async run(job: BatchJob | RetryJob): Promise<void> {
    if ("deliveryIds" in job) {
      const deliveries = await this.pending(job.deliveryIds);
      const outcomes = await Promise.all(deliveries.map((d) => this.attempt(d)));
      const delivered = deliveries.filter((_, i) => outcomes[i]!.kind === "delivered").map((d) => d.id);
      // One statement for the batch's successes, the usual case.
      await this.prisma.statusPageNoticeDelivery.updateMany({ where: { id: { in: delivered } }, data: { outcome: "delivered", attempts: { increment: 1 }, completedAt: new Date() } });
      for (const [i, delivery] of deliveries.entries()) {
        const retryInMs = await this.settle(delivery, outcomes[i]!);
        if (retryInMs !== null) await this.jobs.retry([delivery.id], retryInMs);
      }
      return;
    }
    const [delivery] = await this.pending([job.deliveryId]);
    if (!delivery) return;
    const outcome = await this.attempt(delivery);
    if (outcome.kind === "delivered") {
      await this.prisma.statusPageNoticeDelivery.updateMany({ where: { id: delivery.id }, data: { outcome: "delivered", attempts: { increment: 1 }, completedAt: new Date() } });
      return;
    }
    const retryInMs = await this.settle(delivery, outcome);
    if (retryInMs !== null) throw new RetryLater(retryInMs);
  }

  private attempt(delivery: PendingDelivery): Promise<Outcome> {
    return this.jobs.attempt(async () => {
      try {
        await this.send(delivery);
        return { kind: "delivered" };
      } catch (error) {
        const ended = endingReasonOf(error);
        if (ended) return { kind: "ended", reason: ended };
        // Anything but a provider's answer (a bug, an odd library error) is worth another try.
        return { kind: "failed", error: error instanceof DeliveryError ? error : new DeliveryError(String((error as Error)?.message ?? error), true) };
      }
    });
  }

  private async send(delivery: PendingDelivery): Promise<void> {
    const { subscriber, notice } = delivery;
    const { settings } = this.options;
    const unsubscribeLink = subscriptionLink(notice.page, settings.publicUrl, "unsubscribe", this.options.tokens.unsubscribeToken(subscriber.id));
    if (subscriber.webhookUrl && subscriber.webhookSecret) {
      const page = { id: notice.page.id, title: notice.page.title, url: pageUrl(notice.page, settings.publicUrl) };
      const subject = { id: notice.subjectId, title: notice.title, status: notice.status, message: notice.message, link: notice.link, componentIds: notice.componentIds, unsubscribeUrl: unsubscribeLink };
      await sendNoticeWebhook(subscriber.webhookUrl, this.options.secrets.open(subscriber.webhookSecret), delivery.id, page, { kind: notice.kind, createdAt: notice.createdAt, subject }, settings);
      return;
    }
    if (!subscriber.email) throw new DeliveryError("the subscriber has neither an address nor a webhook", false);
    // Notices are written in the page's language: a subscriber's own is not kept.
    const words = pageWords(notice.page.language);
    await sendNoticeMail(settings, { words, to: subscriber.email, pageTitle: notice.page.title, subject: subjectOf(words, notice), message: notice.message, link: notice.link, unsubscribeLink });
  }

  /** Records an attempt that did not deliver; returns when to try again, or null when done. */
  private async settle(delivery: PendingDelivery, outcome: Outcome): Promise<number | null> {
    const log = { delivery: delivery.id, subscriber: delivery.subscriberId, notice: delivery.noticeId, pageId: delivery.notice.pageId };
    if (outcome.kind === "delivered") return null;
    if (outcome.kind === "ended") {
      // The subscription ends; its deliveries go with it.
      await this.prisma.statusPageSubscriber.deleteMany({ where: { id: delivery.subscriberId } });
      this.logger.info({ ...log, reason: outcome.reason }, "status page subscription ended by its recipient");
      return null;
    }
    const attempts = delivery.attempts + 1;
    const final = !outcome.error.retryable || attempts > this.options.retryDelaysMs.length;
    await this.prisma.statusPageNoticeDelivery.updateMany({
      where: { id: delivery.id },
      data: { outcome: final ? "failed" : "pending", attempts, statusCode: outcome.error.statusCode, error: outcome.error.message, completedAt: final ? new Date() : null },
    });
    this.logger.warn({ ...log, attempts, error: outcome.error.message, final }, "status page notice delivery failed");
    return final ? null : retryDelayMs(this.options.retryDelaysMs, attempts, outcome.error.retryAfterMs);
  }
}

/** Why an answer ends the subscription, or null: a recipient refused for good, or a webhook answering 410 Gone. */
function endingReasonOf(error: unknown): string | null {
  if (error instanceof RecipientRefused) return error.message;
  if (error instanceof DeliveryError && error.statusCode === GONE) return "the webhook answered 410 Gone";
  return null;
}
