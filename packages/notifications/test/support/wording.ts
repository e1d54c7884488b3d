import type { DeliveryEvent } from "@vigil/domain";

const LINK = "https://vigil.example/monitors/0194f3b2-mon1";
const STARTED = "2026-05-01 10:00:00 UTC";

/**
 * What the text of each sampleMessage(event) must say, written out by hand
 * (not derived from text.ts) so that a provider that drops a fact fails.
 */
export const MUST_SAY: Record<DeliveryEvent, string[]> = {
  "monitor.failed": [
    "Homepage",
    "https://api.example.com/health",
    "is down",
    "hostA-ams",
    "hostB-fra",
    "HTTP 503",
    "http_status",
    "Status code: 503",
    "120 ms",
    STARTED,
    LINK,
  ],
  "monitor.degraded": ["Homepage", "https://api.example.com/health", "is degraded", "hostA-ams", "Status code: 200", "4200 ms", STARTED, LINK],
  "monitor.recovered": ["Homepage", "https://api.example.com/health", "has recovered", "hostA-ams", "hostB-fra", "80 ms", STARTED, "4m 10s", LINK],
  "incident.acknowledged": ["Homepage", "has an acknowledged incident", STARTED, LINK],
  "monitor.certificate_expiring": [
    "Homepage",
    "https://api.example.com/health",
    "expires in 10 days",
    "2026-05-11 10:00:00 UTC",
    "2026-06-01 00:00:00 UTC",
    "Test Intermediate",
    "DNS:api.example.com",
    "hostA-ams",
    LINK,
  ],
  "monitor.certificate_renewed": [
    "Homepage",
    "https://api.example.com/health",
    "has a renewed TLS certificate",
    "expiring on 2026-08-09 10:00:00 UTC",
    "Test Intermediate",
    "Replaces: the certificate expiring 2026-05-11 10:00:00 UTC",
    "hostA-ams",
    LINK,
  ],
  "slo.burn_rate": ["Homepage", "https://api.example.com/health", "burns its error budget too fast", "availability objective 99.9 %", "15.2x over 1 h", "7.1x over 6 h", "62.5 % of the budget left", LINK],
  "slo.burn_rate_ended": ["Homepage", "no longer burns its error budget too fast", "availability objective 99.9 %", "0.0x over 1 h", "3.0x over 6 h", LINK],
  test: ["Homepage", "is a test", LINK],
};

export function expectFullWording(text: string, event: DeliveryEvent): void {
  for (const words of MUST_SAY[event]) expect(text).toContain(words);
}
