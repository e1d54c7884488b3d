import { MONITOR_KIND_NAMES, formatDuration, formatTime, type RegionReport } from "@vigil/domain";
import type { AlertMessage } from "./types";

/**
 * The words of every message, so that all twelve providers say the same
 * thing: each provider only lays these out in its own format. Every message
 * names the monitor, what happened, where, with which error, status code and
 * latency, since when, on recovery for how long, and links to PUBLIC_URL.
 */

const HEADLINE = {
  "monitor.failed": "DOWN",
  "monitor.degraded": "DEGRADED",
  "monitor.recovered": "RECOVERED",
  "incident.acknowledged": "ACKNOWLEDGED",
  "monitor.certificate_expiring": "CERTIFICATE EXPIRING",
  "monitor.certificate_renewed": "CERTIFICATE RENEWED",
  "slo.burn_rate": "SLO BURNING",
  "slo.burn_rate_ended": "SLO BURN ENDED",
  test: "TEST",
} as const;

/**
 * A failure because the deployment refused to connect to the target (the SSRF
 * guard): says so instead of calling the target down, which nobody knows.
 */
const isRefusedTarget = (message: AlertMessage) => message.event === "monitor.failed" && message.reason === "blocked";

/** A short label for the event: DOWN, DEGRADED, RECOVERED or TEST; BLOCKED for a target the deployment refuses to reach. */
export const headline = (message: AlertMessage): string => (isRefusedTarget(message) ? "BLOCKED" : HEADLINE[message.event]);

/** "DOWN: Homepage" */
export const title = (message: AlertMessage): string => `${headline(message)}: ${message.monitor.name}`;

const WHAT = {
  "monitor.failed": "is down",
  "monitor.degraded": "is degraded (slower than its degraded threshold)",
  "monitor.recovered": "has recovered",
  "incident.acknowledged": "has an acknowledged incident",
  "monitor.certificate_expiring": "has a TLS certificate that expires soon",
  "monitor.certificate_renewed": "has a renewed TLS certificate",
  "slo.burn_rate": "burns its error budget too fast",
  "slo.burn_rate_ended": "no longer burns its error budget too fast",
  test: "is a test: Vigil can reach this channel",
} as const;
const STILL = { "monitor.failed": "is still down", "monitor.degraded": "is still degraded" } as const;
const WHAT_REFUSED = "cannot be checked: this deployment refuses to connect to its address";

function what(message: AlertMessage): string {
  if (isRefusedTarget(message)) return WHAT_REFUSED;
  if (message.reminder && (message.event === "monitor.failed" || message.event === "monitor.degraded")) return STILL[message.event];
  if (message.acknowledgement) return `${WHAT[message.event]} (by ${message.acknowledgement.by})`;
  if (message.event === "monitor.certificate_expiring" && message.certificate) return `has a TLS certificate that expires in ${daysWord(message.certificate.daysLeft)}`;
  return WHAT[message.event];
}

const daysWord = (days: number) => (days === 1 ? "1 day" : `${days} days`);

/** "Homepage (https://example.com) is down in hostA-ams, hostB-fra: HTTP 503 (http_status)" */
export function summary(message: AlertMessage): string {
  const { monitor } = message;
  const where = message.regions.length > 0 && message.event !== "test" ? ` in ${regionList(message.regions)}` : "";
  // A heartbeat has no target to name.
  const named = monitor.target ? `${monitor.name} (${monitor.target})` : monitor.name;
  if (message.certificate) {
    const when = `${message.event === "monitor.certificate_renewed" ? "expiring " : ""}on ${formatTime(new Date(message.certificate.chainNotAfter))}`;
    return `${named} ${what(message)}, ${when}`;
  }
  if (message.slo) return `${named} ${what(message)}: ${sloWords(message.slo)}`;
  const cause = message.event === "monitor.failed" || message.event === "monitor.degraded" ? causeOf(message) : "";
  const lasted = message.durationMs === null ? "" : message.reminder ? ` for ${formatDuration(message.durationMs)}` : ` after ${formatDuration(message.durationMs)}`;
  return `${named} ${what(message)}${where}${lasted}${cause ? `: ${cause}` : ""}`;
}

const rateWords = (rate: number | null) => (rate === null ? "no checks" : `${rate.toFixed(1)}x`);

/** "availability objective 99.9 %, burn rate 15.2x over 1 h and 7.1x over 6 h, 12.5 % of the 30-day budget left" */
function sloWords(slo: NonNullable<AlertMessage["slo"]>): string {
  const objective = slo.objective === "latency" ? `latency objective ${slo.target} % under ${slo.thresholdMs} ms` : `availability objective ${slo.target} %`;
  const left = slo.budgetRemaining === null ? "" : `, ${slo.budgetRemaining.toFixed(1)} % of the budget left`;
  return `${objective}, burn rate ${rateWords(slo.burnRate1h)} over 1 h and ${rateWords(slo.burnRate6h)} over 6 h${left}`;
}

/** The error with its reason and status: "HTTP 503 (http_status)". */
function causeOf(message: AlertMessage): string {
  const parts: string[] = [];
  if (message.error) parts.push(message.error);
  else if (message.statusCode !== null) parts.push(`HTTP ${message.statusCode}`);
  if (message.reason) parts.push(`(${message.reason})`);
  return parts.join(" ");
}

export const regionList = (regions: RegionReport[]) => regions.map((r) => r.region).join(", ");

/** The facts of a message as label and value, in reading order; absent facts are left out. */
export function facts(message: AlertMessage): { label: string; value: string }[] {
  const out: { label: string; value: string }[] = [
    { label: "Monitor", value: `${message.monitor.name} (${MONITOR_KIND_NAMES[message.monitor.kind]}${message.monitor.target ? ` ${message.monitor.target}` : ""})` },
    { label: "Status", value: `${headline(message)}: ${message.monitor.name} ${what(message)}` },
  ];
  if (message.regions.length > 0) out.push({ label: "Regions", value: message.regions.map(describeRegion).join("; ") });
  if (message.error) out.push({ label: "Error", value: message.reason ? `${message.error} (${message.reason})` : message.error });
  if (message.statusCode !== null) out.push({ label: "Status code", value: String(message.statusCode) });
  if (message.latencyMs !== null) out.push({ label: "Latency", value: `${Math.round(message.latencyMs)} ms` });
  if (message.incident) out.push({ label: "Started", value: formatTime(message.incident.startedAt) });
  if (message.durationMs !== null) out.push({ label: "Duration", value: formatDuration(message.durationMs) });
  if (message.reminder) out.push({ label: "Reminder", value: `#${message.reminder}, until the incident is acknowledged or resolved` });
  if (message.certificate) out.push(...certificateFacts(message.certificate));
  if (message.slo) out.push({ label: "Objective", value: sloWords(message.slo) });
  if (message.acknowledgement) out.push({ label: "Acknowledged", value: `${formatTime(message.acknowledgement.at)} by ${message.acknowledgement.by}` });
  out.push({ label: "Link", value: message.link });
  if (message.ackLink) out.push({ label: "Acknowledge", value: message.ackLink });
  return out;
}

/** The certificate's expiry (the chain's earliest, saying so when an intermediate's comes first), issuer and names. */
function certificateFacts(certificate: NonNullable<AlertMessage["certificate"]>): { label: string; value: string }[] {
  const expires = `${formatTime(new Date(certificate.chainNotAfter))} (${daysWord(certificate.daysLeft)} left)`;
  const out = [{ label: "Expires", value: certificate.chainNotAfter === certificate.notAfter ? expires : `${expires}: an issuing certificate of the chain expires before the server certificate (${formatTime(new Date(certificate.notAfter))})` }];
  out.push({ label: "Issuer", value: certificate.issuer });
  if (certificate.subjectAltNames.length > 0) out.push({ label: "Names", value: certificate.subjectAltNames.join(", ") });
  out.push({ label: "Seen in", value: certificate.region });
  if (certificate.renews) out.push({ label: "Replaces", value: `the certificate expiring ${formatTime(new Date(certificate.renews))}` });
  return out;
}

/** "hostA-ams: error, HTTP 503, 120 ms" */
function describeRegion(region: RegionReport): string {
  const parts: string[] = [region.status];
  if (region.statusCode !== null) parts.push(`HTTP ${region.statusCode}`);
  if (region.error && region.status === "error") parts.push(region.reason ? `${region.error} (${region.reason})` : region.error);
  if (region.latencyMs !== null) parts.push(`${Math.round(region.latencyMs)} ms`);
  return `${region.region}: ${parts.join(", ")}`;
}

/** The whole message as plain text: the summary, then one fact per line. */
export function plainText(message: AlertMessage): string {
  return [summary(message), "", ...facts(message).map((f) => `${f.label}: ${f.value}`)].join("\n");
}

export { formatTime };

/** The colour of the event: red for down, amber for degraded, orange for an expiring certificate or a burning SLO, green for recovered, renewed or a burn ended, blue for a test. */
export const COLOURS = {
  "monitor.failed": 0xe01e5a,
  "monitor.degraded": 0xecb22e,
  "monitor.recovered": 0x2eb67d,
  "incident.acknowledged": 0x36c5f0,
  "monitor.certificate_expiring": 0xf2994a,
  "monitor.certificate_renewed": 0x2eb67d,
  "slo.burn_rate": 0xf2994a,
  "slo.burn_rate_ended": 0x2eb67d,
  test: 0x36c5f0,
} as const;
export const colourOf = (message: AlertMessage): number => COLOURS[message.event];
export const hexColour = (message: AlertMessage): string => `#${colourOf(message).toString(16).padStart(6, "0")}`;
