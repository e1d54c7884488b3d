import { v7 as uuidv7 } from "uuid";
import { Prisma, type PrismaClient } from "@vigil/db";
import { SUBSCRIBERS, subscriberRoomLeft } from "@vigil/domain";
import { tokenHash, type SubscriberTokens } from "./tokens";

/** What asking to subscribe an address came to. */
export type EmailSubscribeOutcome =
  /** A confirmation is to be mailed with this token (a new subscription, or one still waiting: its link is replaced). */
  | { kind: "confirm"; subscriberId: string; confirmToken: string }
  /** The address is subscribed already: nothing is sent (the visitor is answered alike, so the answer tells nobody who is subscribed). */
  | { kind: "subscribed" }
  /** The page holds as many subscribers as the deployment allows. */
  | { kind: "full" };

/** A subscriber that confirmed its link, as the owners' list shows it. */
export type SubscriberRow = Prisma.StatusPageSubscriberModel;

/** A subscription unconfirmed past its link's life is forgotten: it holds no room on the page. */
const expiredPending = (pageId: string, now: Date): Prisma.StatusPageSubscriberWhereInput => ({
  pageId,
  confirmedAt: null,
  confirmExpiresAt: { lt: now },
});

/** The subscribers of status pages as their owners see them (status_page_subscribers). */
export class SubscriberDirectory {
  constructor(protected readonly prisma: PrismaClient) {}

  /** A page's subscribers, oldest first, and their number. */
  async list(pageId: string, limit: number, offset: number): Promise<{ records: SubscriberRow[]; total: number }> {
    const [records, total] = await Promise.all([
      this.prisma.statusPageSubscriber.findMany({ where: { pageId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: limit, skip: offset }),
      this.prisma.statusPageSubscriber.count({ where: { pageId } }),
    ]);
    return { records, total };
  }

  /** The subscriber with this id on a page of the workspace, or null. */
  find(workspaceId: string, id: string): Promise<SubscriberRow | null> {
    return this.prisma.statusPageSubscriber.findFirst({ where: { id, page: { workspaceId } } });
  }

  /** Ends a subscription: the row goes, and with it the address and what it was sent. Whether there was one. */
  async remove(pageId: string, subscriberId: string): Promise<boolean> {
    return (await this.prisma.statusPageSubscriber.deleteMany({ where: { id: subscriberId, pageId } })).count > 0;
  }
}

/** Subscribing and confirming, for the public routes: the directory, and the tokens of the links. */
export class SubscriberRepository extends SubscriberDirectory {
  constructor(
    prisma: PrismaClient,
    private readonly tokens: SubscriberTokens,
  ) {
    super(prisma);
  }

  /**
   * Subscribes an address to a page, waiting for confirmation, in a
   * transaction that locks the page's row so that concurrent subscriptions
   * cannot pass its limit together.
   */
  async subscribeEmail(pageId: string, address: string, componentIds: readonly string[], now: Date, maxPerPage: number): Promise<EmailSubscribeOutcome> {
    const confirmToken = this.tokens.newConfirmToken();
    const confirm = {
      componentIds: [...componentIds],
      confirmTokenHash: tokenHash(confirmToken),
      confirmExpiresAt: new Date(now.getTime() + SUBSCRIBERS.confirmLinkHours * 3_600_000),
    };
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM status_pages WHERE id = ${pageId} FOR UPDATE`;
      await tx.statusPageSubscriber.deleteMany({ where: expiredPending(pageId, now) });
      const existing = await tx.statusPageSubscriber.findUnique({ where: { pageId_email: { pageId, email: address } } });
      if (existing?.confirmedAt) return { kind: "subscribed" } as const;
      if (existing) {
        await tx.statusPageSubscriber.update({ where: { id: existing.id }, data: confirm });
        return { kind: "confirm", subscriberId: existing.id, confirmToken } as const;
      }
      if (!subscriberRoomLeft(await tx.statusPageSubscriber.count({ where: { pageId } }), maxPerPage)) return { kind: "full" } as const;
      const id = uuidv7();
      await tx.statusPageSubscriber.create({
        data: { id, pageId, kind: "email", email: address, unsubscribeTokenHash: tokenHash(this.tokens.unsubscribeToken(id)), createdAt: now, ...confirm },
      });
      return { kind: "confirm", subscriberId: id, confirmToken } as const;
    });
  }

  /**
   * Subscribes a webhook that answered the verification handshake: it is
   * confirmed at once. A URL subscribed already takes the new secret and
   * components (only its endpoint could answer the handshake). Null when the
   * page is full.
   */
  async subscribeWebhook(pageId: string, url: string, componentIds: readonly string[], sealedSecret: string, now: Date, maxPerPage: number): Promise<string | null> {
    const fields = { componentIds: [...componentIds], webhookSecret: sealedSecret, confirmedAt: now };
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM status_pages WHERE id = ${pageId} FOR UPDATE`;
      await tx.statusPageSubscriber.deleteMany({ where: expiredPending(pageId, now) });
      const existing = await tx.statusPageSubscriber.findUnique({ where: { pageId_webhookUrl: { pageId, webhookUrl: url } } });
      if (existing) {
        await tx.statusPageSubscriber.update({ where: { id: existing.id }, data: fields });
        return existing.id;
      }
      if (!subscriberRoomLeft(await tx.statusPageSubscriber.count({ where: { pageId } }), maxPerPage)) return null;
      const id = uuidv7();
      await tx.statusPageSubscriber.create({
        data: { id, pageId, kind: "webhook", webhookUrl: url, unsubscribeTokenHash: tokenHash(this.tokens.unsubscribeToken(id)), createdAt: now, ...fields },
      });
      return id;
    });
  }

  /** Confirms the subscription of this link; the subscriber, or null when the link is unknown, of another page or expired. */
  async confirm(pageId: string, token: string, now: Date): Promise<SubscriberRow | null> {
    const hash = tokenHash(token);
    const row = await this.prisma.statusPageSubscriber.findUnique({ where: { confirmTokenHash: hash } });
    if (!row || row.pageId !== pageId || !row.confirmExpiresAt || row.confirmExpiresAt <= now) return null;
    const confirmed = { confirmedAt: now, confirmTokenHash: null, confirmExpiresAt: null };
    // Spent by the one request that finds the link still there: a link opened twice at once confirms once.
    const { count } = await this.prisma.statusPageSubscriber.updateMany({ where: { id: row.id, confirmTokenHash: hash }, data: confirmed });
    return count === 1 ? { ...row, ...confirmed } : null;
  }

  /** The subscriber an unsubscribe link names, or null. */
  async findByUnsubscribeToken(pageId: string, token: string): Promise<SubscriberRow | null> {
    return this.prisma.statusPageSubscriber.findFirst({ where: { pageId, unsubscribeTokenHash: tokenHash(token) } });
  }
}
