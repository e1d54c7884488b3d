import { create, toJson, type DescMessage, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate, type FieldMask } from "@bufbuild/protobuf/wkt";
import { DeliverySchema, NotificationSchema, type Delivery, type Notification } from "@vigil/proto/notification";
import type { DeliveryEvent } from "../alerting";
import { PROVIDER_TYPES, blockName, type ProviderConfig, type ProviderType } from "../notification-config";
import { ValidationError } from "../validation";
import { fieldsOfMask } from "./update-mask";

/** The provider type whose block a oneof case of Notification.provider is (`googleChat` is google_chat). */
const typeOfBlock = (blockCase: string): ProviderType | undefined => PROVIDER_TYPES.find((type) => blockName(type) === blockCase);

const blockDescriptor = (type: ProviderType): DescMessage => {
  const field = NotificationSchema.fields.find((f) => f.localName === blockName(type));
  if (field?.message === undefined) throw new Error(`notification.v1.Notification has no block for ${type}`);
  return field.message;
};

/** The provider block a Notification carries: its type and its fields as plain JSON (for parseProviderConfig). */
export interface ProviderBlockInput {
  type: ProviderType;
  fields: JsonObject;
}

/** The fields of a Notification message, decoded; absent ones are undefined. */
export interface NotificationInput {
  name: string | undefined;
  providerType: string | undefined;
  monitorIds: string[];
  block: ProviderBlockInput | undefined;
  /** Unvalidated (parseExternalId). */
  externalId: string | undefined;
  reminderMinutes: number | undefined;
}

export function notificationInputFromMessage(message: Notification): NotificationInput {
  const { case: blockCase, value } = message.provider;
  const type = blockCase === undefined ? undefined : typeOfBlock(blockCase);
  return {
    name: message.name,
    providerType: message.providerType,
    monitorIds: [...message.monitorIds],
    externalId: message.externalId,
    reminderMinutes: message.reminderMinutes,
    // Every field written, zero values included, so a missing required field is reported as empty.
    block: type && value && { type, fields: toJson(blockDescriptor(type), value, { alwaysEmitImplicit: true }) as JsonObject },
  };
}

/** The fields of a channel an update mask may name besides its provider block. */
const PLAIN_FIELDS = ["name", "monitorIds", "externalId", "reminderMinutes"] as const;
type PlainField = (typeof PLAIN_FIELDS)[number];

/** The fields an update mask may name: the plain fields and the provider blocks. */
const UPDATABLE = NotificationSchema.fields.filter((field) => PLAIN_FIELDS.includes(field.localName as PlainField) || field.oneof?.name === "provider");

/** What an update changes: the name, the set of monitors, the external id, the reminders, and the provider block of the given type. */
export type NotificationChanges = Record<PlainField, boolean> & { block: ProviderType | null };

/**
 * The fields an update changes. With an update mask, exactly the fields it
 * names: name, monitor_ids, external_id, reminder_minutes, or a block by its
 * proto or JSON name (google_chat or googleChat). Without one, the fields the
 * message carries: a name, external id or reminder_minutes that is present, a
 * non-empty monitor_ids and a set block.
 */
export function notificationChanges(message: Notification, mask: FieldMask | undefined): NotificationChanges {
  if (!mask || mask.paths.length === 0) {
    return {
      name: message.name !== undefined,
      monitorIds: message.monitorIds.length > 0,
      externalId: message.externalId !== undefined,
      reminderMinutes: message.reminderMinutes !== undefined,
      block: message.provider.case === undefined ? null : (typeOfBlock(message.provider.case) ?? null),
    };
  }
  const changes: NotificationChanges = { name: false, monitorIds: false, externalId: false, reminderMinutes: false, block: null };
  for (const field of fieldsOfMask(UPDATABLE, mask, "name, monitor_ids, external_id, reminder_minutes or a provider block")) {
    const type = field.oneof ? typeOfBlock(field.localName)! : null;
    if (type === null) changes[field.localName as PlainField] = true;
    else if (changes.block === null || changes.block === type) changes.block = type;
    else throw ValidationError.of("updateMask", "names two provider blocks; a channel has one");
  }
  return changes;
}

/**
 * A stored channel as answers show it: `provider.config` already has its
 * sensitive fields redacted, and `secretFingerprints` tells which values are stored.
 */
export interface NotificationView {
  id: string;
  name: string;
  provider: ProviderConfig;
  monitorIds: string[];
  externalId: string | null;
  reminderMinutes: number;
  secretFingerprints: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
}

export function notificationToMessage(view: NotificationView): Notification {
  return create(NotificationSchema, {
    id: view.id,
    name: view.name,
    providerType: view.provider.type,
    monitorIds: view.monitorIds,
    externalId: view.externalId ?? "",
    reminderMinutes: view.reminderMinutes,
    // The block's fields are named as the proto's (camelCase), so the config initialises the block message.
    provider: { case: blockName(view.provider.type), value: view.provider.config } as Notification["provider"],
    secretFingerprints: view.secretFingerprints,
    createdAt: timestampFromDate(view.createdAt),
    updatedAt: timestampFromDate(view.updatedAt),
  });
}

/** One delivery of an event (or a test message) to a channel, as stored. */
export interface DeliveryRecord {
  id: string;
  notificationId: string;
  event: DeliveryEvent;
  monitorId: string | null;
  incidentId: string | null;
  eventAt: Date;
  createdAt: Date;
  completedAt: Date | null;
  attempts: number;
  outcome: "pending" | "delivered" | "failed";
  statusCode: number | null;
  error: string | null;
}

export function deliveryToMessage(record: DeliveryRecord): Delivery {
  return create(DeliverySchema, {
    id: record.id,
    notificationId: record.notificationId,
    event: record.event,
    monitorId: record.monitorId ?? "",
    incidentId: record.incidentId ?? "",
    eventAt: timestampFromDate(record.eventAt),
    createdAt: timestampFromDate(record.createdAt),
    completedAt: record.completedAt ? timestampFromDate(record.completedAt) : undefined,
    attempts: record.attempts,
    outcome: record.outcome,
    statusCode: record.statusCode ?? 0,
    error: record.error ?? "",
  });
}
