import type { Client } from "@connectrpc/connect";
import { MonitorService, type DNSMonitor, type GRPCMonitor, type HTTPMonitor, type HeartbeatMonitor, type Monitor, type TCPMonitor } from "@vigil/proto";
import { MONITOR_KIND_NAMES } from "@vigil/domain/monitors";

export type Kind = NonNullable<Monitor["config"]["case"]>;
export type AnyMonitor = HTTPMonitor | TCPMonitor | DNSMonitor | GRPCMonitor | HeartbeatMonitor;

/** Each kind's name as the console shows it. */
export const KIND_NAMES: Record<Kind, string> = MONITOR_KIND_NAMES;

/** What a monitor checks: the URL of an HTTP monitor, the host:port or domain of the others; a heartbeat checks nothing. */
export const targetOf = (kind: Kind, monitor: AnyMonitor): string =>
  (kind === "http" ? (monitor as HTTPMonitor).url : kind === "heartbeat" ? "" : (monitor as TCPMonitor | DNSMonitor | GRPCMonitor).uri) ?? "";

/**
 * Pauses or resumes a monitor through its kind's Update method, as `vigil monitors update --no-active`
 * does: only `active` is named in the mask, so nothing else changes.
 */
export function setActive(client: Client<typeof MonitorService>, kind: Kind, id: string, active: boolean): Promise<unknown> {
  const request = { id, monitor: { active }, updateMask: { paths: ["active"] } };
  switch (kind) {
    case "http":
      return client.updateHTTPMonitor(request);
    case "tcp":
      return client.updateTCPMonitor(request);
    case "dns":
      return client.updateDNSMonitor(request);
    case "grpc":
      return client.updateGRPCMonitor(request);
    case "heartbeat":
      return client.updateHeartbeatMonitor(request);
  }
}
