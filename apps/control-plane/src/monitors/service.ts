import { create } from "@bufbuild/protobuf";
import type { FieldMask } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  ValidationError,
  fieldsToUpdate,
  monitorInputFromMessage,
  monitorToMessage,
  parseMonitorConfig,
  parsePage,
  type MonitorKind,
  type MonitorMessageByKind,
  type MonitorRecord,
} from "@vigil/domain";
import { DNSMonitorSchema, HTTPMonitorSchema, MonitorService, TCPMonitorSchema } from "@vigil/proto";
import { actorOf } from "../auth/context";
import { notFound } from "../errors";
import type { MonitorRepository } from "./repository";

const METHOD_KIND = { http: "HTTP", tcp: "TCP", dns: "DNS" } as const;
const EMPTY_MESSAGE = { http: HTTPMonitorSchema, tcp: TCPMonitorSchema, dns: DNSMonitorSchema };
/** Attempts at a partial update that keeps losing to concurrent writers before giving up. */
const UPDATE_ATTEMPTS = 5;

function requireId(id: string): string {
  if (id === "") throw ValidationError.of("id", "is required");
  return id;
}

export function monitorService(repo: MonitorRepository): ServiceImpl<typeof MonitorService> {
  const workspaceOf = (ctx: HandlerContext) => actorOf(ctx).workspace.id;

  async function findMonitor(ctx: HandlerContext, id: string): Promise<MonitorRecord> {
    const record = await repo.find(workspaceOf(ctx), requireId(id));
    if (!record) throw notFound(`monitor ${id}`);
    return record;
  }

  async function createMonitor<K extends MonitorKind>(ctx: HandlerContext, kind: K, message: MonitorMessageByKind[K] | undefined) {
    if (!message) throw ValidationError.of("monitor", "is required");
    const config = parseMonitorConfig(kind, monitorInputFromMessage(kind, message));
    return { monitor: monitorToMessage(await repo.create(workspaceOf(ctx), kind, config)) };
  }

  async function updateMonitor<K extends MonitorKind>(
    ctx: HandlerContext,
    kind: K,
    request: { id: string; monitor?: MonitorMessageByKind[K]; updateMask?: FieldMask },
  ) {
    const message = request.monitor ?? (create(EMPTY_MESSAGE[kind]) as unknown as MonitorMessageByKind[K]);
    const fields = fieldsToUpdate(kind, message, request.updateMask);
    const input = monitorInputFromMessage(kind, message);
    const changes = Object.fromEntries(fields.map((field) => [field, input[field]]));
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = await findMonitor(ctx, request.id);
      if (current.kind !== kind) {
        const other = METHOD_KIND[current.kind];
        throw ValidationError.of("id", `names a ${other} monitor; update it with Update${other}Monitor`);
      }
      const config = parseMonitorConfig(kind, { ...current.config, ...changes });
      if (fields.length === 0) return { monitor: monitorToMessage(current as MonitorRecord<K>) };
      const saved = await repo.replaceConfig(workspaceOf(ctx), current as MonitorRecord<K>, config);
      if (saved) return { monitor: monitorToMessage(saved) };
    }
    throw new ConnectError("the monitor kept changing while this update was applied; try again", Code.Aborted);
  }

  const pipelineArrivesLater = (method: string) =>
    new ConnectError(`${method} answers once the check pipeline is running`, Code.Unimplemented);

  return {
    createHTTPMonitor: (req, ctx) => createMonitor(ctx, "http", req.monitor),
    createTCPMonitor: (req, ctx) => createMonitor(ctx, "tcp", req.monitor),
    createDNSMonitor: (req, ctx) => createMonitor(ctx, "dns", req.monitor),
    updateHTTPMonitor: (req, ctx) => updateMonitor(ctx, "http", req),
    updateTCPMonitor: (req, ctx) => updateMonitor(ctx, "tcp", req),
    updateDNSMonitor: (req, ctx) => updateMonitor(ctx, "dns", req),

    async listMonitors(req, ctx) {
      const page = parsePage({ limit: req.limit, offset: req.offset });
      const { records, total } = await repo.list(workspaceOf(ctx), page.limit, page.offset);
      const ofKind = <K extends MonitorKind>(kind: K) =>
        records.filter((r): r is MonitorRecord<K> => r.kind === kind).map((r) => monitorToMessage(r));
      return { httpMonitors: ofKind("http"), tcpMonitors: ofKind("tcp"), dnsMonitors: ofKind("dns"), totalSize: total };
    },

    async getMonitor(req, ctx) {
      const record = await findMonitor(ctx, req.id);
      return { monitor: { config: { case: record.kind, value: monitorToMessage(record) } as never } };
    },

    async deleteMonitor(req, ctx) {
      if (!(await repo.delete(workspaceOf(ctx), requireId(req.id)))) throw notFound(`monitor ${req.id}`);
      return { success: true };
    },

    async triggerMonitor(req, ctx) {
      await findMonitor(ctx, req.id);
      throw pipelineArrivesLater("TriggerMonitor");
    },
    async getMonitorStatus(req, ctx) {
      await findMonitor(ctx, req.id);
      throw pipelineArrivesLater("GetMonitorStatus");
    },
    async getMonitorSummary(req, ctx) {
      await findMonitor(ctx, req.id);
      throw pipelineArrivesLater("GetMonitorSummary");
    },
  };
}
