/** Every numeric limit of the contract, in one place. */
export const LIMITS = {
  nameMaxChars: 256,
  targetMaxChars: 2048,
  descriptionMaxChars: 1024,
  timeoutMs: { min: 0, max: 120_000 },
  retry: { min: 0, max: 10 },
  degradedAtMs: { min: 0, max: 120_000 },
  /** Consecutive checks that move a region to failing (confirmations) or back (recoveryConfirmations). */
  confirmations: { min: 1, max: 10 },
  /** Monitors one monitor may depend on (dependsOn, docs/alerting.md "Dependencies"). */
  dependsOnPerMonitor: 20,
  /** An HTTP monitor's certificateExpiryDays: 0 (off) to ten years, beyond any certificate a public CA issues. */
  certificateExpiryDays: { min: 0, max: 3650 },
  headersPerMonitor: 20,
  /** A gRPC monitor's health service name ("package.Service"). */
  grpcServiceMaxChars: 512,
  /** An HTTP monitor's request body, a header value (of a monitor, its OTLP export or a webhook), an assertion's target. */
  httpBodyMaxChars: 64 * 1024,
  headerValueMaxChars: 8 * 1024,
  assertionTargetMaxChars: 1024,
  assertionsPerList: 10,
  /** A JSON body assertion's JSONPath query. */
  jsonPathMaxChars: 1024,
  statusCode: { min: 100, max: 599 },
  listLimit: { min: 1, max: 100 },
  /** Notification channels: keys and tokens, e-mail addresses, Telegram chat ids, webhook headers. */
  secretMaxChars: 1024,
  emailMaxChars: 254,
  chatIdMaxChars: 256,
  webhookHeaders: 20,
  /** A channel's reminders of an open incident: 0 (none) to a day apart. */
  reminderMinutes: { min: 0, max: 1440 },
  /** Ids the API takes (monitor_ids of a channel). */
  idMaxChars: 64,
  /** Status pages: e-mail domains allowed to sign in, a page password (hashed; its length only bounds the work). */
  authEmailDomains: 50,
  pagePasswordMaxChars: 1024,
  /** Incidents written on a status page (docs/status-pages.md "Incidents"): a title, each update's and the postmortem's Markdown, the components named, the updates kept. */
  incidentTitleMaxChars: 256,
  incidentMessageMaxChars: 10_000,
  incidentPostmortemMaxChars: 50_000,
  incidentComponents: 25,
  incidentUpdates: 200,
  /** Maintenance windows (docs/alerting.md "Maintenance"): an occurrence's length, the RRULE's text, the monitors and components named. */
  maintenanceMaxMs: 31 * 86_400_000,
  maintenanceRecurrenceMaxChars: 500,
  maintenanceMonitors: 100,
  maintenanceComponents: 100,
  /** Largest request body the API reads. */
  requestBodyBytes: 1024 * 1024,
  /** Audit log entries one listing of the admin command shows. */
  auditListLimit: { min: 1, max: 10_000 },
  /** Heartbeat monitors (docs/checks.md "Heartbeats"): the period between runs and the lateness forgiven, 30 s and 0 s to 31 days. */
  heartbeatPeriodSeconds: { min: 30, max: 31 * 86_400 },
  heartbeatGraceSeconds: { min: 0, max: 31 * 86_400 },
  cronMaxChars: 256,
  timezoneMaxChars: 64,
  /** The part of a ping's body kept with it (the job's last log lines); the rest is cut. */
  pingBodyBytes: 10 * 1024,
  /** Pings one token may send a second; more are answered 429 (docs/limits.md). */
  pingsPerSecondPerToken: 10,
} as const;

export const DEFAULTS = {
  method: "GET",
  body: "",
  timeoutMs: 45_000,
  retry: 3,
  followRedirects: true,
  /** HTTP checks send a W3C traceparent header unless the monitor turns it off (docs/checks.md "Traces"). */
  traceHeader: true,
  /** Days before a certificate's expiry that monitor.certificate_expiring is first sent (docs/checks.md "Certificates"). */
  certificateExpiryDays: 14,
  /** gRPC monitors connect in plaintext unless told otherwise, and expect the health status SERVING. */
  grpcTls: false,
  grpcExpectedStatus: "SERVING",
  active: false,
  public: false,
  description: "",
  /** "" follows the deployment's ALERT_QUORUM. */
  alertQuorum: "",
  /** One check moves a region, as before these settings existed. */
  confirmations: 1,
  /** Monitors one workspace may have (MONITORS_PER_WORKSPACE). */
  monitorsPerWorkspace: 20_000,
  listLimit: 50,
  listOffset: 0,
  auditListLimit: 100,
  auditRetentionDays: 365,
  /** A heartbeat monitor given neither a period nor a cron expression expects a run a day, an hour late at most. */
  heartbeatPeriodSeconds: 86_400,
  heartbeatGraceSeconds: 3_600,
  timezone: "UTC",
} as const;

/**
 * The time a check is allowed, in ms: a timeout of 0 means "no timeout of its
 * own", and a check must still end, so the largest timeout allowed bounds it.
 */
export function effectiveTimeoutMs(timeoutMs: number): number {
  return timeoutMs === 0 ? LIMITS.timeoutMs.max : timeoutMs;
}

/**
 * degradedAt when a monitor does not set it: half of the time a check is
 * allowed, so that it is degraded once it has used half of it (60000 ms for a
 * timeout of 0).
 * Computed once, when the monitor is created (or when an update names
 * degradedAt without a value), and stored, so clients never see it drift.
 */
export function defaultDegradedAt(timeoutMs: number): number {
  return Math.floor(effectiveTimeoutMs(timeoutMs) / 2);
}
