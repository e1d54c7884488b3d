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
    monitor: { id: subject.id, name: subject.name, kind: subject.kind, target: subject.target },
    status: subject.status,
    incident: null,
    regions: [],
    error: null,
    reason: null,
    statusCode: null,
    latencyMs: null,
    durationMs: null,
    link: monitor ? monitorLink(settings, monitor.id) : settings.publicUrl,
  };
}

/** Where a message about a monitor links to. */
export const monitorLink = (settings: Pick<ProviderSettings, "publicUrl">, monitorId: string) =>
  `${settings.publicUrl}/monitors/${encodeURIComponent(monitorId)}`;
