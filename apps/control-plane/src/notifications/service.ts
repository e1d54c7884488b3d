import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  PROVIDER_TYPES,
  ValidationError,
  blockName,
  channelTargets,
  deliveryToMessage,
  isProviderType,
  notificationChanges,
  notificationInputFromMessage,
  notificationToMessage,
  parseChannelCommon,
  parseDeliveriesFilter,
  parseExternalId,
  parsePage,
  parseProviderConfig,
  rejectRedactedCredentials,
  type FieldViolation,
  type NotificationInput,
  type ProviderConfig,
  type ProviderType,
  parseId,
} from "@vigil/domain";
import { DeliveryError, newSigningSecret, providerOf, testMessage, type Delivered, type ProviderSettings } from "@vigil/notifications";
import { NotificationSchema, NotificationService } from "@vigil/proto/notification";
import { actorOf, readsOnly } from "../auth/context";
import { notFound } from "../errors";
import { redactConfig, restoreRedacted, secretFingerprints } from "./redaction";
import { channelOf, type ChannelRecord, type NotificationRepository, type TestDelivery } from "./repository";

/** Attempts at an update that keeps losing to concurrent writers before giving up. */
const UPDATE_ATTEMPTS = 5;

/** Runs a parser and files its violations, so one answer can name every broken rule. */
function collect<T>(violations: FieldViolation[], parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    violations.push(...error.violations);
    return undefined;
  }
}

/** The answer's form of a channel: sensitive fields redacted (and credentials, for a read key), fingerprints of the stored values. */
const toMessage = (record: ChannelRecord, readKey = false) =>
  notificationToMessage({
    id: record.id,
    name: record.name,
    provider: redactConfig(record.provider, record.id, readKey),
    monitorIds: record.monitorIds,
    externalId: record.externalId,
    reminderMinutes: record.reminderMinutes,
    secretFingerprints: secretFingerprints(record.id, record.provider),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  });

/** The block a create carries, which must be there and match provider_type when both are given. */
function blockOfCreate(input: NotificationInput): ProviderConfig {
  const { block, providerType } = input;
  if (!block) {
    if (providerType === undefined) {
      throw ValidationError.of("notification.provider", `is required: one provider block (${PROVIDER_TYPES.map(blockName).join(", ")})`);
    }
    if (!isProviderType(providerType)) throw ValidationError.of("notification.providerType", `must be one of ${PROVIDER_TYPES.join(", ")}`);
    throw ValidationError.of(`notification.${blockName(providerType)}`, `is required: providerType is ${providerType}`);
  }
  const violations: FieldViolation[] = [];
  if (providerType !== undefined && providerType !== block.type) {
    violations.push({ field: "notification.providerType", rule: `must match the provider block (${block.type})` });
  }
  const config = collect(violations, () => parseProviderConfig(block.type, block.fields));
  collect(violations, () => rejectRedactedCredentials({ [blockName(block.type)]: config }, "notification"));
  if (violations.length > 0) throw new ValidationError(violations);
  return { type: block.type, config } as ProviderConfig;
}

/**
 * The block after an update: the stored one unless the update changes it
 * (then the block sent, where a sensitive value sent back redacted keeps the
 * stored value). provider_type, when given, must name the resulting provider.
 */
function blockOfUpdate(input: NotificationInput, changed: ProviderType | null, current: ChannelRecord): ProviderConfig {
  const { block, providerType } = input;
  if (changed === null) {
    if (providerType !== undefined && providerType !== current.provider.type) {
      throw ValidationError.of(
        "notification.providerType",
        `is ${current.provider.type}; the provider changes only together with its block: send the new provider's block`,
      );
    }
    return current.provider;
  }
  if (!block || block.type !== changed) throw ValidationError.of(`notification.${blockName(changed)}`, "is required: updateMask names it");
  return blockOfCreate({ ...input, block: { type: block.type, fields: restoreRedacted(block.fields, block.type, current.provider, current.id) } });
}

export function notificationService(repo: NotificationRepository, settings: ProviderSettings): ServiceImpl<typeof NotificationService> {
  const workspaceOf = (ctx: HandlerContext) => actorOf(ctx).workspace.id;

  async function findChannel(ctx: HandlerContext, id: string): Promise<ChannelRecord> {
    const record = await repo.find(workspaceOf(ctx), parseId(id));
    if (!record) throw notFound(`notification ${id}`);
    return record;
  }

  async function requireMonitorsOfWorkspace(ctx: HandlerContext, monitorIds: readonly string[]): Promise<void> {
    const unknown = await repo.unknownMonitors(workspaceOf(ctx), monitorIds);
    if (unknown.size === 0) return;
    throw new ValidationError(
      monitorIds.flatMap((id, index) =>
        unknown.has(id) ? [{ field: `notification.monitorIds[${index}]`, rule: `no monitor ${id} in this workspace` }] : [],
      ),
    );
  }

  /** Channels of a provider the deployment lacks settings for could never deliver: refused while that lasts. */
  function requireConfigured(type: ProviderType): void {
    const missing = providerOf(type).missingSettings(settings);
    if (missing.length > 0) {
      throw new ConnectError(`this deployment is not configured for ${type} channels: set ${missing.join(", ")}`, Code.FailedPrecondition);
    }
  }

  /** Sends now, and reports what the provider answered; a DeliveryError is an answer, anything else a fault. */
  async function attempt(send: () => Promise<Delivered>): Promise<Pick<TestDelivery, "outcome" | "statusCode" | "error">> {
    try {
      return { outcome: "delivered", statusCode: (await send()).statusCode, error: null };
    } catch (error) {
      if (!(error instanceof DeliveryError)) throw error;
      return { outcome: "failed", statusCode: error.statusCode, error: error.message };
    }
  }

  return {
    async createNotification(req, ctx) {
      if (!req.notification) throw ValidationError.of("notification", "is required");
      const input = notificationInputFromMessage(req.notification);
      const violations: FieldViolation[] = [];
      const common = collect(violations, () => parseChannelCommon(input));
      const provider = collect(violations, () => blockOfCreate(input));
      const externalId = collect(violations, () => parseExternalId(input.externalId, "notification.externalId"));
      if (!common || !provider || externalId === undefined) throw new ValidationError(violations);
      settings.addressPolicy.assertTargetsAllowed(channelTargets(provider));
      await requireMonitorsOfWorkspace(ctx, common.monitorIds);
      requireConfigured(provider.type);
      const signingSecret = provider.type === "webhook" ? newSigningSecret() : null;
      const record = await repo.create(workspaceOf(ctx), { ...common, provider, signingSecret, externalId });
      return { notification: toMessage(record), signingSecret: signingSecret ?? "" };
    },

    async updateNotification(req, ctx) {
      const message = req.notification ?? create(NotificationSchema);
      const changes = notificationChanges(message, req.updateMask);
      const input = notificationInputFromMessage(message);
      for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
        const current = await findChannel(ctx, req.id);
        const violations: FieldViolation[] = [];
        const common = collect(violations, () =>
          parseChannelCommon({
            name: changes.name ? (input.name ?? "") : current.name,
            monitorIds: changes.monitorIds ? input.monitorIds : current.monitorIds,
            reminderMinutes: changes.reminderMinutes ? (input.reminderMinutes ?? 0) : current.reminderMinutes,
          }),
        );
        const provider = collect(violations, () => blockOfUpdate(input, changes.block, current));
        const externalId = collect(violations, () =>
          changes.externalId ? parseExternalId(input.externalId, "notification.externalId") : current.externalId,
        );
        if (!common || !provider || externalId === undefined) throw new ValidationError(violations);
        if (changes.monitorIds) await requireMonitorsOfWorkspace(ctx, common.monitorIds);
        if (changes.block) {
          settings.addressPolicy.assertTargetsAllowed(channelTargets(provider));
          requireConfigured(provider.type);
        }
        if (!changes.name && !changes.monitorIds && !changes.block && !changes.externalId && !changes.reminderMinutes) {
          return { notification: toMessage(current), signingSecret: "" };
        }

        const becomesWebhook = provider.type === "webhook" && current.provider.type !== "webhook";
        const newSecret = becomesWebhook ? newSigningSecret() : null;
        const saved = await repo.update(workspaceOf(ctx), current, {
          name: common.name,
          provider,
          signingSecret: provider.type === "webhook" ? (newSecret ?? current.signingSecret) : null,
          monitorIds: changes.monitorIds ? common.monitorIds : undefined,
          externalId,
          reminderMinutes: common.reminderMinutes,
        });
        if (saved) return { notification: toMessage(saved), signingSecret: newSecret ?? "" };
      }
      throw new ConnectError("the channel kept changing while this update was applied; try again", Code.Aborted);
    },

    async getNotification(req, ctx) {
      return { notification: toMessage(await findChannel(ctx, req.id), readsOnly(ctx)) };
    },

    async listNotifications(req, ctx) {
      const page = parsePage({ limit: req.limit, offset: req.offset });
      const { records, total } = await repo.list(workspaceOf(ctx), page.limit, page.offset);
      const readKey = readsOnly(ctx);
      return { notifications: records.map((record) => toMessage(record, readKey)), totalSize: total };
    },

    async deleteNotification(req, ctx) {
      if (!(await repo.delete(workspaceOf(ctx), parseId(req.id)))) throw notFound(`notification ${req.id}`);
      return { success: true };
    },

    async sendTestNotification(req, ctx) {
      const record = await findChannel(ctx, req.id);
      requireConfigured(record.provider.type);
      const monitor = await repo.firstLinkedMonitor(record.id);
      const message = testMessage(record, monitor, settings);
      const channel = channelOf(record);
      const result = await attempt(() => providerOf(channel.type).send(message, channel as never, { settings }));
      await repo.recordTestDelivery(record.id, { monitorId: monitor?.id ?? null, eventAt: message.occurredAt, ...result });
      return { success: result.outcome === "delivered", errorMessage: result.error ?? "" };
    },

    async listNotificationDeliveries(req, ctx) {
      const { limit } = parsePage({ limit: req.limit });
      const filter = parseDeliveriesFilter(req);
      if (filter.notificationId) await findChannel(ctx, filter.notificationId);
      return { deliveries: (await repo.listDeliveries(workspaceOf(ctx), filter, limit)).map(deliveryToMessage) };
    },
  };
}
