import type { MonitorStatus } from "./comparators";

/** The events a monitor's status transitions produce, as channels and webhooks name them. */
export const ALERT_EVENTS = ["monitor.failed", "monitor.degraded", "monitor.recovered"] as const;
export type AlertEventType = (typeof ALERT_EVENTS)[number];
/**
 * What a delivery carries: an alert event, an incident's acknowledgement
 * (webhook channels only), or a message sent by SendTestNotification.
 */
export type DeliveryEvent =
  | AlertEventType
  | "incident.acknowledged"
  | typeof CERTIFICATE_EXPIRING_EVENT
  | typeof CERTIFICATE_RENEWED_EVENT
  | typeof SLO_BURN_RATE_EVENT
  | typeof SLO_BURN_RATE_ENDED_EVENT
  | "test";

/**
 * A monitor's error budget burns too fast by the multi-window rule (slo.ts BURN_RATE_RULE): sent to every channel of
 * the monitor once per episode, outside any incident (docs/alerting.md "SLOs").
 */
export const SLO_BURN_RATE_EVENT = "slo.burn_rate";

/** The episode's burn no longer meets the rule: ends it as a recovery ends an incident (PagerDuty resolves, Opsgenie closes, OnCall marks it ok). */
export const SLO_BURN_RATE_ENDED_EVENT = "slo.burn_rate_ended";

/**
 * A monitor's TLS certificate expires within its certificateExpiryDays (and
 * again at 7 and 1 days): sent to every channel of the monitor, outside any
 * incident, since the monitor is not failing.
 */
export const CERTIFICATE_EXPIRING_EVENT = "monitor.certificate_expiring";

/**
 * A monitor whose certificate was warned about now shows one that expires
 * later: ends the warning, as a recovery ends an incident (PagerDuty
 * resolves, Opsgenie closes, OnCall marks it ok; the others are told).
 */
export const CERTIFICATE_RENEWED_EVENT = "monitor.certificate_renewed";

/** Incident events recorded beside the transitions: an acknowledgement, and a channel's reminder (not in the timeline). */
export const ACKNOWLEDGED_EVENT = "incident.acknowledged";
export const REMINDER_EVENT = "incident.reminder";

/** How long a link in an alert message can acknowledge its incident, unless the incident resolves first. */
export const ACK_LINK_VALID_HOURS = 7 * 24;

/** How long an expired link is kept so that it still reads "Link expired"; after that it is deleted and reads as unknown. */
export const ACK_LINK_KEPT_DAYS = 30;

/**
 * The providers told of an acknowledgement: the webhook (a program may act on
 * it), and PagerDuty and Opsgenie, which acknowledge their own alert. Chat,
 * mail and phone channels are not: whoever acknowledged has seen the alert,
 * and a second message to everyone would be the noise acknowledging stops.
 */
export const ACKNOWLEDGEMENT_PROVIDERS: readonly string[] = ["webhook", "pagerduty", "opsgenie"];

/**
 * The reminder due now for an incident open since `startedAt`, from a channel
 * reminding every `minutes`: 1 after the first period, 2 after the second…;
 * 0 when none is due yet or the channel sends none. Only the latest is due:
 * a control plane that was down sends one reminder, not the ones it missed.
 */
export function reminderDue(startedAt: Date, minutes: number, now: Date): number {
  if (minutes <= 0) return 0;
  return Math.max(0, Math.floor((now.getTime() - startedAt.getTime()) / (minutes * 60_000)));
}

/**
 * The event a transition of the monitor-level status produces, if any: into
 * error is monitor.failed, into degraded monitor.degraded, from error or
 * degraded into active monitor.recovered. A new monitor's first healthy
 * status (unknown into active) is no event.
 */
export function eventOfTransition(from: MonitorStatus, to: MonitorStatus): AlertEventType | null {
  if (from === to) return null;
  if (to === "error") return "monitor.failed";
  if (to === "degraded") return "monitor.degraded";
  if (to === "active" && (from === "error" || from === "degraded")) return "monitor.recovered";
  return null;
}

/**
 * Why a check failed, named, beside its message: so alerts, incidents and
 * pages can say "timed out" or "refused" rather than only repeat an error.
 */
export const FAILURE_REASONS = [
  // No answer within the monitor's timeout.
  "timeout",
  // The target's name did not resolve (DNS checks: the lookup itself failed).
  "dns",
  // The connection was refused, reset or unreachable.
  "connect",
  // The TLS handshake or certificate failed.
  "tls",
  // An HTTP status that the monitor's assertions (or the default 2xx rule) refuse.
  "http_status",
  // A body, header or record assertion failed.
  "assertion",
  // The address is one the deployment does not allow checks to reach.
  "blocked",
  // The target answered something that is not the protocol (a malformed HTTP or DNS answer, too many redirects).
  "protocol",
  // A heartbeat monitor received no success ping by its deadline (no check ran: the job went quiet).
  "silence",
  // A heartbeat monitor's job reported a failure: a /fail ping, or a non-zero exit code.
  "job_failed",
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export const isFailureReason = (value: unknown): value is FailureReason => FAILURE_REASONS.includes(value as FailureReason);
