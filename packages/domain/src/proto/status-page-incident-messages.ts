import { create } from "@bufbuild/protobuf";
import { timestampFromDate, type FieldMask } from "@bufbuild/protobuf/wkt";
import { StatusPageIncidentSchema, type StatusPageIncident } from "@vigil/proto/status-page";
import { INCIDENT_UPDATABLE, type AffectedComponent, type IncidentFields, type IncidentStatus } from "../status-page-incidents";
import { statusPageMessageChanges } from "./status-page-messages";

type Fields<K extends string> = Partial<Record<K, unknown>>;

const components = (message: StatusPageIncident) => message.components.map(({ componentId, impact }) => ({ componentId, impact }));

/** An incident's settable fields as a create sends them; absent ones are undefined (and take their defaults). */
export function incidentInputFromMessage(message: StatusPageIncident): Fields<keyof IncidentFields> {
  return {
    title: message.title,
    status: message.status,
    message: message.message,
    components: components(message),
    postmortem: message.postmortem,
    monitorIncidentId: message.monitorIncidentId,
    internal: message.internal,
  };
}

/**
 * The fields an update of an incident changes, as UpdateStatusPageRequest
 * says; pageId and monitorIncidentId only so that the service can refuse a
 * change (repeating the stored value is fine).
 */
export function incidentChanges(message: StatusPageIncident, mask: FieldMask | undefined): Fields<(typeof INCIDENT_UPDATABLE)[number] | "pageId" | "monitorIncidentId"> {
  const changed = statusPageMessageChanges(StatusPageIncidentSchema, [...INCIDENT_UPDATABLE, "pageId", "monitorIncidentId"], message, mask, { internal: false });
  return changed.components === undefined ? changed : { ...changed, components: components(message) };
}

export interface IncidentUpdateView {
  id: string;
  incidentId: string;
  status: IncidentStatus;
  message: string;
  createdAt: Date;
}

/** A stored incident with its components and its updates, newest first. */
export interface IncidentView {
  id: string;
  pageId: string;
  title: string;
  status: IncidentStatus;
  components: AffectedComponent[];
  postmortem: string;
  monitorIncidentId: string | null;
  internal: boolean;
  updates: IncidentUpdateView[];
  createdAt: Date;
  updatedAt: Date;
  resolvedAt: Date | null;
}

export function incidentToMessage(view: IncidentView): StatusPageIncident {
  return create(StatusPageIncidentSchema, {
    id: view.id,
    pageId: view.pageId,
    title: view.title,
    status: view.status,
    components: view.components,
    postmortem: view.postmortem,
    monitorIncidentId: view.monitorIncidentId ?? "",
    internal: view.internal,
    updates: view.updates.map((u) => ({ ...u, createdAt: timestampFromDate(u.createdAt) })),
    createdAt: timestampFromDate(view.createdAt),
    updatedAt: timestampFromDate(view.updatedAt),
    ...(view.resolvedAt ? { resolvedAt: timestampFromDate(view.resolvedAt) } : {}),
  });
}
