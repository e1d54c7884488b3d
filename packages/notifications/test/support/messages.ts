import type { DeliveryEvent } from "@vigil/domain";
import { providerSettingsFromEnv, type ProviderSettings } from "../../src/settings";
import type { AlertMessage } from "../../src/types";

const STARTED = new Date("2026-05-01T10:00:00.000Z");

/** A realistic message of each kind: an HTTP monitor failing in two regions, then recovering after 4m 10s. */
export function sampleMessage(event: DeliveryEvent, overrides: Partial<AlertMessage> = {}): AlertMessage {
  const incident = event === "test" || event.startsWith("monitor.certificate_") || event.startsWith("slo.") ? null : { id: "0194f3b2-inc1", startedAt: STARTED, resolvedAt: null };
  const base: AlertMessage = {
    id: `evt-${event}`,
    event,
    occurredAt: STARTED,
    monitor: { id: "0194f3b2-mon1", name: "Homepage", kind: "http", target: "https://api.example.com/health" },
    status: "error",
    incident,
    regions: [
      { region: "hostA-ams", status: "error", error: "HTTP 503", reason: "http_status", statusCode: 503, latencyMs: 120 },
      { region: "hostB-fra", status: "error", error: "HTTP 503", reason: "http_status", statusCode: 503, latencyMs: 95 },
    ],
    error: "HTTP 503",
    reason: "http_status",
    statusCode: 503,
    latencyMs: 120,
    durationMs: null,
    link: "https://vigil.example/monitors/0194f3b2-mon1",
  };
  if (event === "monitor.degraded") {
    Object.assign(base, {
      status: "degraded",
      regions: [{ region: "hostA-ams", status: "degraded", error: null, reason: null, statusCode: 200, latencyMs: 4200 }],
      error: null,
      reason: null,
      statusCode: 200,
      latencyMs: 4200,
    });
  }
  if (event === "monitor.recovered") {
    const resolvedAt = new Date(STARTED.getTime() + 250_000);
    Object.assign(base, {
      status: "active",
      occurredAt: resolvedAt,
      incident: { id: "0194f3b2-inc1", startedAt: STARTED, resolvedAt },
      regions: [
        { region: "hostA-ams", status: "active", error: null, reason: null, statusCode: 200, latencyMs: 80 },
        { region: "hostB-fra", status: "active", error: null, reason: null, statusCode: 200, latencyMs: 70 },
      ],
      error: null,
      reason: null,
      statusCode: 200,
      latencyMs: 80,
      durationMs: 250_000,
    });
  }
  if (event === "monitor.certificate_expiring") {
    // An intermediate expiring before the leaf: the message says which date counts.
    Object.assign(base, {
      status: "active",
      regions: [],
      error: null,
      reason: null,
      statusCode: null,
      latencyMs: null,
      certificate: {
        notAfter: "2026-06-01T00:00:00.000Z",
        chainNotAfter: "2026-05-11T10:00:00.000Z",
        issuer: "C=US, O=Test CA, CN=Test Intermediate",
        subjectAltNames: ["DNS:api.example.com", "DNS:www.example.com"],
        region: "hostA-ams",
        daysLeft: 10,
      },
    });
  }
  if (event === "monitor.certificate_renewed") {
    Object.assign(base, {
      status: "active",
      regions: [],
      error: null,
      reason: null,
      statusCode: null,
      latencyMs: null,
      certificate: {
        notAfter: "2026-08-09T10:00:00.000Z",
        chainNotAfter: "2026-08-09T10:00:00.000Z",
        issuer: "C=US, O=Test CA, CN=Test Intermediate",
        subjectAltNames: ["DNS:api.example.com"],
        region: "hostA-ams",
        daysLeft: 90,
        // The chain expiry of the certificate the warnings were about.
        renews: "2026-05-11T10:00:00.000Z",
      },
    });
  }
  if (event === "slo.burn_rate" || event === "slo.burn_rate_ended") {
    const burning = event === "slo.burn_rate";
    Object.assign(base, {
      status: "active",
      regions: [],
      error: null,
      reason: null,
      statusCode: null,
      latencyMs: null,
      slo: { episodeId: "0194f3b2-ep1", objective: "availability", target: 99.9, thresholdMs: 0, burnRate1h: burning ? 15.2 : 0, burnRate6h: burning ? 7.1 : 3, budgetRemaining: 62.5 },
    });
  }
  if (event === "test") Object.assign(base, { status: "active", regions: [], error: null, reason: null, statusCode: null, latencyMs: null });
  return { ...base, ...overrides };
}

/** Provider settings pointing every provider API at `baseUrl` (a local double). */
export function settingsFor(baseUrl: string, env: NodeJS.ProcessEnv = {}): ProviderSettings {
  return providerSettingsFromEnv(
    {
      PUBLIC_URL: "https://vigil.example",
      PAGERDUTY_EVENTS_URL: `${baseUrl}/v2/enqueue`,
      OPSGENIE_API_URL: baseUrl,
      OPSGENIE_EU_API_URL: `${baseUrl}/eu`,
      TELEGRAM_API_URL: baseUrl,
      TELEGRAM_BOT_TOKEN: "123456:ABC-token",
      TWILIO_API_URL: baseUrl,
      TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
      TWILIO_AUTH_TOKEN: "twilio-auth-token",
      TWILIO_SMS_FROM: "+15557122661",
      TWILIO_WHATSAPP_FROM: "+14155238886",
      EMAIL_FROM: "Vigil <alerts@vigil.example>",
      // Generous: a loaded CI machine can starve a loopback answer for seconds.
      // The timeout test sets its own.
      NOTIFICATION_TIMEOUT_SECONDS: "15",
      // The doubles are on loopback, which the SSRF guard refuses by default.
      ALLOW_PRIVATE_TARGETS: "true",
      ...env,
    },
    "http://localhost:8080",
  );
}
