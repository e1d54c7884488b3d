import type { AlertMessage } from "./types";

/**
 * The key that ties the messages of one incident together at a provider
 * (PagerDuty dedup_key, Opsgenie alias, the e-mail thread): failure,
 * degradation and recovery of one outage share it. A test message has no
 * incident and gets a key of its own, so it never touches a real alert.
 */
export const incidentKey = (message: AlertMessage): string =>
  message.incident ? `vigil-incident-${message.incident.id}` : `vigil-${message.id}`;
