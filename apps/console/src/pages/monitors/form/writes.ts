import { MONITOR_FIELDS, monitorConfigToMessage, type MonitorConfigByKind, type MonitorKind } from "@vigil/domain/monitors";
import {
  DNSMonitorSchema,
  GRPCMonitorSchema,
  HTTPMonitorSchema,
  MonitorService,
  TCPMonitorSchema,
  type DNSMonitor,
  type GRPCMonitor,
  type HTTPMonitor,
  type TCPMonitor,
} from "@vigil/proto";
import { useQueryClient } from "@tanstack/react-query";
import { useClient } from "../../../controls";
import type { ValidMonitor } from "./values";

const MESSAGES = { http: HTTPMonitorSchema, tcp: TCPMonitorSchema, dns: DNSMonitorSchema, grpc: GRPCMonitorSchema } as const;

/** An update mask naming every field a form sets, as the proto spells them (`degraded_at`). */
const everyField = (kind: MonitorKind) => {
  const fields = new Set<string>([...(MONITOR_FIELDS[kind] as readonly string[]), "externalId"]);
  return { paths: MESSAGES[kind].fields.filter((field) => fields.has(field.localName)).map((field) => field.name) };
};

/**
 * Create and Update of each kind, as the forms send them: the whole
 * configuration, and on update a mask naming every field, so that a list
 * emptied in the form is emptied (a partial update keeps empty lists).
 * Each answers the monitor's id; the console's queries are asked again.
 */
export function useMonitorWrites() {
  const client = useClient(MonitorService);
  const queries = useQueryClient();
  const messageOf = <K extends MonitorKind>(kind: K, { externalId, ...config }: ValidMonitor<K>) =>
    monitorConfigToMessage(kind, config as unknown as MonitorConfigByKind[K], externalId);
  const done = async (answer: { monitor?: { id: string } }) => {
    await queries.invalidateQueries();
    return answer.monitor!.id;
  };

  async function create<K extends MonitorKind>(kind: K, valid: ValidMonitor<K>): Promise<string> {
    const monitor = messageOf(kind, valid);
    if (kind === "http") return done(await client.createHTTPMonitor({ monitor: monitor as HTTPMonitor }));
    if (kind === "tcp") return done(await client.createTCPMonitor({ monitor: monitor as TCPMonitor }));
    if (kind === "grpc") return done(await client.createGRPCMonitor({ monitor: monitor as GRPCMonitor }));
    return done(await client.createDNSMonitor({ monitor: monitor as DNSMonitor }));
  }

  async function update<K extends MonitorKind>(kind: K, id: string, valid: ValidMonitor<K>): Promise<string> {
    const monitor = messageOf(kind, valid);
    const updateMask = everyField(kind);
    if (kind === "http") return done(await client.updateHTTPMonitor({ id, monitor: monitor as HTTPMonitor, updateMask }));
    if (kind === "tcp") return done(await client.updateTCPMonitor({ id, monitor: monitor as TCPMonitor, updateMask }));
    if (kind === "grpc") return done(await client.updateGRPCMonitor({ id, monitor: monitor as GRPCMonitor, updateMask }));
    return done(await client.updateDNSMonitor({ id, monitor: monitor as DNSMonitor, updateMask }));
  }

  return { create, update };
}
