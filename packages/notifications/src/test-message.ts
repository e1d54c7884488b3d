import { randomUUID } from "node:crypto";
import type { StoredMonitorKind, MonitorStatus } from "@vigil/domain";
import type { ProviderSettings } from "./settings";
import type { AlertMessage, Channel } from "./types";

/**
 * The message SendTestNotification sends: event `test`, naming the channel's
 * first linked monitor (or the channel itself when it has none), so the
 * receiver sees exactly how Vigil's messages will look.
 */
export function testMessage(
  channel: Pick<Channel, "id" | "name">,
  monitor: { id: string; name: string; kind: StoredMonitorKind; target: string; status: MonitorStatus } | null,
  settings: Pick<ProviderSettings, "publicUrl">,
  now = new Date(),
): AlertMessage {
  const subject = monitor ?? { id: "", name: channel.name || "Vigil", kind: "http" as const, target: settings.publicUrl, status: "active" as const };
  return {
    id: `test_${randomUUID()}`,
    event: "test",
    occurredAt: now,
    ...aboutMonitorOnly(subject),
    incident: null,
    link: monitor ? monitorLink(settings, monitor.id) : settings.publicUrl,
  };
}

/**
 * The fields of a message about a monitor as a whole rather than a check or an
 * incident (a test, a certificate warning): no regions, check or duration.
 */
export const aboutMonitorOnly = (monitor: AlertMessage["monitor"] & { status: MonitorStatus }) => ({
  monitor: { id: monitor.id, name: monitor.name, kind: monitor.kind, target: monitor.target },
  status: monitor.status,
  regions: [],
  error: null,
  reason: null,
  statusCode: null,
  latencyMs: null,
  durationMs: null,
});

/** Where a message about a monitor links to. */
export const monitorLink = (settings: Pick<ProviderSettings, "publicUrl">, monitorId: string) =>
  `${settings.publicUrl}/monitors/${encodeURIComponent(monitorId)}`;
