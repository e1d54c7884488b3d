import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient } from "@vigil/db";
import { REMINDER_EVENT, isRegionId, monitorStatusCodec, parseId, parsePage, regionCodec, type MonitorStatus, type RegionReport } from "@vigil/domain";
import type { IncidentService } from "@vigil/proto";
import { actorOf } from "../auth/context";
import { notFound } from "../errors";
import type { EventDetails, StoredEvent } from "./message";
import type { Acknowledgements, IncidentRow } from "./acknowledgements";
import { alsoAffectedOf } from "./dependents";

function incidentToMessage(row: IncidentRow, alsoAffected: ReadonlyMap<string, string[]>) {
  return {
    id: row.id,
    monitorId: row.monitorId,
    severity: monitorStatusCodec.encode(row.severity as MonitorStatus),
    startedAt: timestampFromDate(row.startedAt),
    resolvedAt: row.resolvedAt ? timestampFromDate(row.resolvedAt) : undefined,
    durationMs: BigInt(row.resolvedAt ? row.resolvedAt.getTime() - row.startedAt.getTime() : 0),
    regions: row.regions.filter(isRegionId).map(regionCodec.encode),
    error: row.error ?? "",
    reason: row.reason ?? "",
    statusCode: row.statusCode ?? 0,
    acknowledgedAt: row.acknowledgedAt ? timestampFromDate(row.acknowledgedAt) : undefined,
    acknowledgedBy: row.acknowledgedBy ?? "",
    alsoAffected: alsoAffected.get(row.id) ?? [],
  };
}

/** Who made a call, as the audit log names actors: the person by address, the key by id. */
const acknowledgerOf = (ctx: HandlerContext): string => {
  const actor = actorOf(ctx);
  return actor.type === "apiKey" ? `api_key:${actor.keyId}` : `user:${actor.email}`;
};

/** A timeline entry: the event and the regions its messages named, as they were then. */
function eventToMessage(row: StoredEvent & { toStatus: string }) {
  const regions: RegionReport[] = (row.details as EventDetails).regions;
  return {
    id: row.id,
    type: row.type,
    occurredAt: timestampFromDate(row.occurredAt),
    status: monitorStatusCodec.encode(row.toStatus as MonitorStatus),
    regions: regions.map((r) => ({
      region: regionCodec.encode(r.region),
      status: monitorStatusCodec.encode(r.status),
      error: r.error ?? "",
      reason: r.reason ?? "",
      statusCode: r.statusCode ?? 0,
      latencyMs: r.latencyMs ?? 0,
    })),
  };
}

/** The incidents alerting records, newest first, of the caller's workspace only; and their acknowledgement. */
export function incidentService(prisma: PrismaClient, acknowledgements: Acknowledgements): ServiceImpl<typeof IncidentService> {
  const workspaceOf = (ctx: HandlerContext) => actorOf(ctx).workspace.id;
  return {
    async listIncidents(req, ctx) {
      const page = parsePage({ limit: req.limit, offset: req.offset });
      const where = {
        workspaceId: workspaceOf(ctx),
        ...(req.monitorId ? { monitorId: parseId(req.monitorId, "monitorId") } : {}),
        ...(req.openOnly ? { resolvedAt: null } : {}),
      };
      const [rows, total] = await Promise.all([
        prisma.incident.findMany({ where, orderBy: [{ startedAt: "desc" }, { id: "desc" }], take: page.limit, skip: page.offset }),
        prisma.incident.count({ where }),
      ]);
      const alsoAffected = await alsoAffectedOf(prisma, rows.map((row) => row.id));
      return { incidents: rows.map((row) => incidentToMessage(row, alsoAffected)), totalSize: total };
    },

    async getIncident(req, ctx) {
      const row = await prisma.incident.findFirst({
        where: { id: parseId(req.id), workspaceId: workspaceOf(ctx) },
        // Reminders are deliveries to one channel each (ListNotificationDeliveries), not steps of the incident.
        include: { events: { where: { type: { not: REMINDER_EVENT } }, orderBy: [{ occurredAt: "asc" }, { id: "asc" }] } },
      });
      if (!row) throw notFound(`incident ${req.id}`);
      return { incident: incidentToMessage(row, await alsoAffectedOf(prisma, [row.id])), timeline: row.events.map(eventToMessage) };
    },

    async acknowledgeIncident(req, ctx) {
      const incident = await acknowledgements.acknowledge(parseId(req.id), workspaceOf(ctx), acknowledgerOf(ctx));
      return { incident: incidentToMessage(incident, await alsoAffectedOf(prisma, [incident.id])) };
    },
  };
}
