import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, type FieldMask, type Timestamp } from "@bufbuild/protobuf/wkt";
import { MaintenanceWindowSchema, type MaintenanceWindow } from "@vigil/proto";
import { MAINTENANCE_UPDATABLE, nextOccurrences, type MaintenanceFields } from "../maintenance";
import { statusPageMessageChanges } from "./status-page-messages";

type Fields<K extends string> = Partial<Record<K, unknown>>;

const time = (value: Timestamp | undefined): Date | undefined => (value === undefined ? undefined : timestampDate(value));

/** A window's settable fields as a create sends them; absent ones are undefined (and take their defaults). */
export function maintenanceInputFromMessage(message: MaintenanceWindow): Fields<keyof MaintenanceFields> {
  return {
    title: message.title,
    message: message.message,
    startsAt: time(message.startsAt),
    endsAt: time(message.endsAt),
    recurrence: message.recurrence,
    timezone: message.timezone,
    monitorIds: [...message.monitorIds],
    pageComponentIds: [...message.pageComponentIds],
  };
}

/** The fields an update changes, as UpdateMaintenanceWindowRequest says; externalId apart, as it is no field of the rules. */
export function maintenanceChanges(message: MaintenanceWindow, mask: FieldMask | undefined): Fields<keyof MaintenanceFields | "externalId"> {
  const changed = statusPageMessageChanges(MaintenanceWindowSchema, [...MAINTENANCE_UPDATABLE, "externalId"], message, mask, { startsAt: undefined, endsAt: undefined });
  return Object.fromEntries(
    Object.entries(changed).map(([key, value]) => [key, key === "startsAt" || key === "endsAt" ? time(value as Timestamp | undefined) : Array.isArray(value) ? [...value] : value]),
  );
}

/** A stored window. */
export interface MaintenanceView extends MaintenanceFields {
  id: string;
  workspaceId: string;
  externalId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function maintenanceToMessage(view: MaintenanceView, now = new Date()): MaintenanceWindow {
  return create(MaintenanceWindowSchema, {
    id: view.id,
    title: view.title,
    message: view.message,
    startsAt: timestampFromDate(view.startsAt),
    endsAt: timestampFromDate(view.endsAt),
    recurrence: view.recurrence,
    timezone: view.timezone,
    monitorIds: view.monitorIds,
    pageComponentIds: view.pageComponentIds,
    externalId: view.externalId ?? "",
    createdAt: timestampFromDate(view.createdAt),
    updatedAt: timestampFromDate(view.updatedAt),
    nextOccurrences: nextOccurrences(view, now).map((o) => ({ startsAt: timestampFromDate(o.startsAt), endsAt: timestampFromDate(o.endsAt) })),
  });
}
