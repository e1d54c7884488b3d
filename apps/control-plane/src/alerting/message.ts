import { REMINDER_EVENT, type DeliveryEvent } from "@vigil/domain";
import { monitorLink, type AlertMessage, type ProviderSettings } from "@vigil/notifications";

/**
 * What an event's messages say, stored with the event (alert_events.details)
 * when it happens: messages describe the monitor and its regions as they were
 * then, however late a retry sends them.
 */
export type EventDetails = Omit<AlertMessage, "id" | "event" | "occurredAt" | "link" | "incident" | "ackLink" | "acknowledgement"> & {
  /** Dates as JSON keeps them; null for certificate warnings and renewals, which belong to no incident. */
  incident: { id: string; startedAt: string; resolvedAt: string | null } | null;
  acknowledgement?: { by: string; at: string } | null;
};

export interface StoredEvent {
  id: string;
  type: string;
  occurredAt: Date;
  details: unknown;
}

/** A reminder is sent as the alert it repeats: the incident's failure, or its degradation. */
const sentAs = (event: StoredEvent, details: EventDetails): DeliveryEvent =>
  event.type === REMINDER_EVENT ? (details.status === "degraded" ? "monitor.degraded" : "monitor.failed") : (event.type as DeliveryEvent);

/** The message of a stored event, with its link built from PUBLIC_URL and, for an open incident, the link that acknowledges it. */
export function messageOfEvent(event: StoredEvent, settings: Pick<ProviderSettings, "publicUrl">, ackLink: string | null = null): AlertMessage {
  const details = event.details as EventDetails;
  return {
    ...details,
    id: event.id,
    event: sentAs(event, details),
    occurredAt: event.occurredAt,
    incident: details.incident && {
      id: details.incident.id,
      startedAt: new Date(details.incident.startedAt),
      resolvedAt: details.incident.resolvedAt ? new Date(details.incident.resolvedAt) : null,
    },
    link: monitorLink(settings, details.monitor.id),
    ackLink,
    acknowledgement: details.acknowledgement ? { by: details.acknowledgement.by, at: new Date(details.acknowledgement.at) } : null,
  };
}

/** Whether an event's messages carry a link that acknowledges its incident: the alerts of an open incident and their reminders. */
export const offersAcknowledgement = (event: StoredEvent): boolean =>
  event.type === "monitor.failed" || event.type === "monitor.degraded" || event.type === REMINDER_EVENT;
