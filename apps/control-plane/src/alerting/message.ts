import type { AlertEventType } from "@vigil/domain";
import { monitorLink, type AlertMessage, type ProviderSettings } from "@vigil/notifications";

/**
 * What an event's messages say, stored with the event (alert_events.details)
 * when it happens: messages describe the monitor and its regions as they were
 * then, however late a retry sends them.
 */
export type EventDetails = Omit<AlertMessage, "id" | "event" | "occurredAt" | "link" | "incident"> & {
  /** Dates as JSON keeps them. */
  incident: { id: string; startedAt: string; resolvedAt: string | null };
};

export interface StoredEvent {
  id: string;
  type: string;
  occurredAt: Date;
  details: unknown;
}

/** The message of a stored event, with its link built from PUBLIC_URL. */
export function messageOfEvent(event: StoredEvent, settings: Pick<ProviderSettings, "publicUrl">): AlertMessage {
  const details = event.details as EventDetails;
  return {
    ...details,
    id: event.id,
    event: event.type as AlertEventType,
    occurredAt: event.occurredAt,
    incident: {
      id: details.incident.id,
      startedAt: new Date(details.incident.startedAt),
      resolvedAt: details.incident.resolvedAt ? new Date(details.incident.resolvedAt) : null,
    },
    link: monitorLink(settings, details.monitor.id),
  };
}
