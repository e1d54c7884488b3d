import { useQuery } from "@connectrpc/connect-query";
import { MonitorService } from "@vigil/proto";

/** The workspace's monitors by id, for pages that name them (incidents, channels): the first 100. */
export function useMonitorNames(): Map<string, string> {
  const { data } = useQuery(MonitorService.method.listMonitors, { limit: 100 });
  const all = [...(data?.httpMonitors ?? []), ...(data?.tcpMonitors ?? []), ...(data?.dnsMonitors ?? []), ...(data?.grpcMonitors ?? []), ...(data?.heartbeatMonitors ?? [])];
  return new Map(all.map((m) => [m.id, m.name || m.id]));
}
