import type { AlertMessage } from "./types";

/**
 * The key that ties the messages of one incident together at a provider
 * (PagerDuty dedup_key, Opsgenie alias, the e-mail thread): failure,
 * degradation and recovery of one outage share it. A test message has no
 * incident and gets a key of its own, so it never touches a real alert;
 * certificate warnings have no incident and share a key per certificate
 * with the message of its renewal.
 */
export const incidentKey = (message: AlertMessage): string => {
  if (message.incident) return `vigil-incident-${message.incident.id}`;
  // The warnings about one certificate (below the monitor's days, then at 7 and 1) are one alert there, ended by its renewal.
  if (message.certificate) return `vigil-certificate-${message.monitor.id}-${Date.parse(message.certificate.renews ?? message.certificate.chainNotAfter)}`;
  // An SLO's burn episode is one alert there, ended by its end.
  if (message.slo) return `vigil-slo-${message.slo.episodeId}`;
  return `vigil-${message.id}`;
};
