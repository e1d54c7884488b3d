import { Prisma, type PrismaClient } from "@vigil/db";
import type { DeliveryRecord, StoredMonitorKind, MonitorStatus, ProviderConfig, ProviderType } from "@vigil/domain";
import type { Channel } from "@vigil/notifications";
import { externalIdTaken, refusingDuplicates } from "../duplicates";
import { sensitiveFieldsOf } from "./redaction";
import type { SecretBox } from "./secrets";

/** A stored channel, its secrets decrypted. */
export interface ChannelRecord {
  id: string;
  name: string;
  provider: ProviderConfig;
  /** Webhook channels: the Standard Webhooks signing secret. */
  signingSecret: string | null;
  /** Linked monitors, by id. */
  monitorIds: string[];
  externalId: string | null;
  reminderMinutes: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a create or an update writes; `monitorIds` or `externalId` undefined leaves them as they are (none on a create). */
export interface ChannelWrite {
  name: string;
  provider: ProviderConfig;
  signingSecret: string | null;
  monitorIds?: string[];
  externalId?: string | null;
  /** Undefined: 0 on a create, unchanged on an update. */
  reminderMinutes?: number;
}

/** A monitor as a test message names it. */
export interface LinkedMonitor {
  id: string;
  name: string;
  kind: StoredMonitorKind;
  target: string;
  status: MonitorStatus;
}

/** A test message's delivery: attempted once, now. */
export type TestDelivery = Pick<DeliveryRecord, "monitorId" | "eventAt" | "outcome" | "statusCode" | "error">;

/** A stored channel as the providers take it. */
export const channelOf = (record: ChannelRecord): Channel => ({
  id: record.id,
  name: record.name,
  type: record.provider.type,
  config: record.provider.config,
  signingSecret: record.signingSecret,
});

const withLinks = { monitors: { select: { monitorId: true }, orderBy: { monitorId: "asc" } } } satisfies Prisma.NotificationChannelInclude;
type ChannelRow = Prisma.NotificationChannelGetPayload<{ include: typeof withLinks }>;
type ChannelColumns = Pick<ChannelRow, "id" | "name" | "providerType" | "settings" | "secrets" | "signingSecret">;

/** A write of a channel's external id, refused as already_exists when another channel of the workspace has it. */
const uniqueExternalId = <T>(write: ChannelWrite, run: () => Promise<T>) =>
  refusingDuplicates(externalIdTaken("notification", "notification of this workspace", write.externalId), run);

/**
 * Channels in notification_channels: the block's plain fields in `settings`,
 * its sensitive fields as one encrypted JSON object in `secrets`, the webhook
 * signing secret encrypted in `signing_secret`; linked monitors in
 * notification_monitors (deleting a monitor removes its links by cascade).
 */
export class NotificationRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly box: SecretBox,
  ) {}

  private columns(write: ChannelWrite) {
    const config = write.provider.config as Record<string, unknown>;
    const sensitive = sensitiveFieldsOf(write.provider.type);
    const settings = Object.fromEntries(Object.entries(config).filter(([field]) => !sensitive.includes(field)));
    const secrets = Object.fromEntries(sensitive.map((field) => [field, config[field]]));
    return {
      name: write.name,
      providerType: write.provider.type,
      settings: settings as Prisma.InputJsonObject,
      secrets: sensitive.length > 0 ? this.box.seal(JSON.stringify(secrets)) : null,
      signingSecret: write.signingSecret === null ? null : this.box.seal(write.signingSecret),
      externalId: write.externalId,
      reminderMinutes: write.reminderMinutes,
    };
  }

  /** The channel as the providers take it, its secrets decrypted. */
  private decrypt(row: ChannelColumns): Channel {
    const secrets = row.secrets === null ? {} : (JSON.parse(this.box.open(row.secrets)) as object);
    // The row was written from a validated block of its type.
    const provider = { type: row.providerType as ProviderType, config: { ...(row.settings as object), ...secrets } } as ProviderConfig;
    return { id: row.id, name: row.name, ...provider, signingSecret: row.signingSecret === null ? null : this.box.open(row.signingSecret) };
  }

  private toRecord(row: ChannelRow): ChannelRecord {
    const { type, config, signingSecret } = this.decrypt(row);
    return {
      id: row.id,
      name: row.name,
      provider: { type, config } as ProviderConfig,
      signingSecret: signingSecret ?? null,
      monitorIds: row.monitors.map((link) => link.monitorId),
      externalId: row.externalId,
      reminderMinutes: row.reminderMinutes,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  /** Writes the channel and its links in one statement, hence one transaction. */
  async create(workspaceId: string, write: ChannelWrite): Promise<ChannelRecord> {
    const row = await uniqueExternalId(write, () =>
      this.prisma.notificationChannel.create({
        data: {
          workspaceId,
          ...this.columns(write),
          monitors: { create: (write.monitorIds ?? []).map((monitorId) => ({ monitorId })) },
        },
        include: withLinks,
      }),
    );
    return this.toRecord(row);
  }

  async find(workspaceId: string, id: string): Promise<ChannelRecord | null> {
    const row = await this.prisma.notificationChannel.findFirst({ where: { id, workspaceId }, include: withLinks });
    return row && this.toRecord(row);
  }

  /** One page in creation order (then id), and the workspace's total. */
  async list(workspaceId: string, limit: number, offset: number): Promise<{ records: ChannelRecord[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.prisma.notificationChannel.findMany({
        where: { workspaceId },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: limit,
        skip: offset,
        include: withLinks,
      }),
      this.prisma.notificationChannel.count({ where: { workspaceId } }),
    ]);
    return { records: rows.map((row) => this.toRecord(row)), total };
  }

  /**
   * Writes the channel only if it has not changed since `expected` was read
   * (optimistic concurrency, as for monitors), and replaces its links with
   * `monitorIds` when given, in one transaction. Returns null on a conflict.
   */
  async update(workspaceId: string, expected: ChannelRecord, write: ChannelWrite): Promise<ChannelRecord | null> {
    const updated = await uniqueExternalId(write, () => this.prisma.$transaction(async (tx) => {
      const { count } = await tx.notificationChannel.updateMany({
        where: { id: expected.id, workspaceId, updatedAt: expected.updatedAt },
        data: this.columns(write),
      });
      if (count === 0) return false;
      if (write.monitorIds) {
        await tx.notificationMonitor.deleteMany({ where: { notificationId: expected.id, monitorId: { notIn: write.monitorIds } } });
        await tx.notificationMonitor.createMany({
          data: write.monitorIds.map((monitorId) => ({ notificationId: expected.id, monitorId })),
          skipDuplicates: true,
        });
      }
      return true;
    }));
    return updated ? this.find(workspaceId, expected.id) : null;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.notificationChannel.deleteMany({ where: { id, workspaceId } });
    return count > 0;
  }

  /** The ids among `monitorIds` that are not monitors of the workspace. */
  async unknownMonitors(workspaceId: string, monitorIds: readonly string[]): Promise<Set<string>> {
    if (monitorIds.length === 0) return new Set();
    const found = await this.prisma.monitor.findMany({ where: { workspaceId, id: { in: [...monitorIds] } }, select: { id: true } });
    const known = new Set(found.map((monitor) => monitor.id));
    return new Set(monitorIds.filter((id) => !known.has(id)));
  }

  /** The channel's first linked monitor (by id, which follows creation order), for a test message. */
  async firstLinkedMonitor(notificationId: string): Promise<LinkedMonitor | null> {
    const link = await this.prisma.notificationMonitor.findFirst({
      where: { notificationId },
      orderBy: { monitorId: "asc" },
      select: { monitor: { select: { id: true, name: true, kind: true, target: true, status: true } } },
    });
    return link && { ...link.monitor, status: link.monitor.status as MonitorStatus };
  }

  /** Channels as the providers take them, by id, whatever their workspace: the delivery worker sends with them. Deleted ones are missing. */
  async findForDelivery(ids: readonly string[]): Promise<Map<string, Channel>> {
    const rows = await this.prisma.notificationChannel.findMany({ where: { id: { in: [...ids] } } });
    return new Map(rows.map((row) => [row.id, this.decrypt(row)]));
  }

  /** A test message's delivery, begun when it was made (eventAt) and completed now. */
  async recordTestDelivery(notificationId: string, delivery: TestDelivery): Promise<void> {
    await this.prisma.notificationDelivery.create({
      data: { notificationId, event: "test", attempts: 1, createdAt: delivery.eventAt, completedAt: new Date(), ...delivery },
    });
  }

  /** The workspace's deliveries of a channel, an incident or both, newest first. */
  async listDeliveries(workspaceId: string, filter: { notificationId?: string; incidentId?: string }, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.prisma.notificationDelivery.findMany({
      where: { ...filter, notification: { workspaceId } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit,
    });
    return rows.map((row) => ({
      id: row.id,
      notificationId: row.notificationId,
      event: row.event as DeliveryRecord["event"],
      monitorId: row.monitorId,
      incidentId: row.incidentId,
      eventAt: row.eventAt,
      createdAt: row.createdAt,
      completedAt: row.completedAt,
      attempts: row.attempts,
      outcome: row.outcome as DeliveryRecord["outcome"],
      statusCode: row.statusCode,
      error: row.error,
    }));
  }
}
