import { v7 as uuidv7 } from "uuid";
import type { Prisma } from "@vigil/db";
import { eventOfTransition, worseStatus, type AlertEventType } from "@vigil/domain";
import type { RegionReport } from "@vigil/notifications";
import type { RegionAtTransition, Transition } from "../status/evaluate";
import type { EventDetails } from "./message";

type Tx = Prisma.TransactionClient;

interface OpenIncident {
  id: string;
  monitorId: string;
  workspaceId: string;
  startedAt: Date;
  severity: string;
  error: string | null;
  created: boolean;
  changed: boolean;
  resolvedAt: Date | null;
  regions: string[];
  reason: string | null;
  statusCode: number | null;
}

const report = (r: RegionAtTransition): RegionReport => ({
  region: r.region,
  status: r.verdict,
  error: r.error ?? null,
  reason: r.reason ?? null,
  statusCode: r.statusCode ?? null,
  latencyMs: r.latencyMs ?? null,
});

/**
 * Which regions a message names, and the check it leads with: the failing
 * regions and the first of them for an alert; for a recovery the regions
 * that report, led by the newest check.
 */
function affected(event: AlertEventType, regions: RegionAtTransition[]): { named: RegionAtTransition[]; lead: RegionAtTransition | undefined } {
  if (event === "monitor.failed") {
    const named = regions.filter((r) => r.verdict === "error");
    return { named, lead: named[0] };
  }
  if (event === "monitor.degraded") {
    const named = regions.filter((r) => r.verdict === "error" || r.verdict === "degraded");
    return { named, lead: named.find((r) => r.verdict === "degraded") ?? named[0] };
  }
  const named = regions.filter((r) => r.verdict !== "unknown");
  const lead = [...named].sort((a, b) => (b.lastResultAt?.getTime() ?? 0) - (a.lastResultAt?.getTime() ?? 0))[0];
  return { named, lead };
}

/**
 * Turns status transitions into incidents, events and deliveries, in the
 * transaction that caused them (the outbox): a failure opens an incident (or
 * joins the open one), a recovery resolves it, each event gets one delivery
 * per channel linked to its monitor. Returns the new deliveries' ids, to be
 * queued once the transaction has committed.
 */
export async function recordTransitions(tx: Tx, transitions: readonly Transition[]): Promise<string[]> {
  const alerting = transitions.flatMap((t) => {
    const event = eventOfTransition(t.from, t.to);
    return event ? [{ ...t, event }] : [];
  });
  if (alerting.length === 0) return [];
  const monitorIds = [...new Set(alerting.map((t) => t.monitor.id))];
  const open = new Map<string, OpenIncident>();
  for (const row of await tx.incident.findMany({ where: { monitorId: { in: monitorIds }, resolvedAt: null } })) {
    open.set(row.monitorId, { ...row, created: false, changed: false });
  }

  const incidents: OpenIncident[] = [];
  const events: Prisma.AlertEventCreateManyInput[] = [];
  for (const t of alerting) {
    const { named, lead } = affected(t.event, t.regions);
    let incident = open.get(t.monitor.id);
    if (t.event === "monitor.recovered") {
      // A monitor that failed before incidents were recorded has none to resolve, and nobody to tell.
      if (!incident) continue;
      incident.resolvedAt = t.at;
      incident.changed = true;
      open.delete(t.monitor.id);
    } else if (!incident) {
      incident = {
        id: uuidv7(),
        monitorId: t.monitor.id,
        workspaceId: t.monitor.workspaceId,
        startedAt: t.at,
        severity: t.to,
        regions: named.map((r) => r.region),
        error: t.to === "error" ? (lead?.error ?? null) : null,
        reason: t.to === "error" ? (lead?.reason ?? null) : null,
        statusCode: t.to === "error" ? (lead?.statusCode ?? null) : null,
        resolvedAt: null,
        created: true,
        changed: false,
      };
      open.set(t.monitor.id, incident);
      incidents.push(incident);
    } else {
      incident.severity = worseStatus(incident.severity as "error", t.to);
      if (t.to === "error" && incident.error === null && lead) {
        Object.assign(incident, { error: lead.error ?? null, reason: lead.reason ?? null, statusCode: lead.statusCode ?? null });
      }
      incident.changed = true;
    }
    if (!incidents.includes(incident)) incidents.push(incident);
    const details: EventDetails = {
      monitor: { id: t.monitor.id, name: t.monitor.name, kind: t.monitor.kind, target: t.monitor.target },
      status: t.to,
      incident: { id: incident.id, startedAt: incident.startedAt.toISOString(), resolvedAt: incident.resolvedAt?.toISOString() ?? null },
      regions: named.map(report),
      error: lead?.verdict === "error" ? (lead.error ?? null) : null,
      reason: lead?.verdict === "error" ? (lead.reason ?? null) : null,
      statusCode: lead?.statusCode ?? null,
      latencyMs: lead?.latencyMs ?? null,
      durationMs: t.event === "monitor.recovered" ? t.at.getTime() - incident.startedAt.getTime() : null,
    };
    events.push({
      id: uuidv7(),
      workspaceId: t.monitor.workspaceId,
      monitorId: t.monitor.id,
      incidentId: incident.id,
      type: t.event,
      fromStatus: t.from,
      toStatus: t.to,
      occurredAt: t.at,
      details: details as unknown as Prisma.InputJsonValue,
    });
  }

  await saveIncidents(tx, incidents);
  await tx.alertEvent.createMany({ data: events });
  return createDeliveries(tx, events);
}

async function saveIncidents(tx: Tx, incidents: OpenIncident[]): Promise<void> {
  const columns = (i: OpenIncident) => ({
    severity: i.severity,
    resolvedAt: i.resolvedAt,
    error: i.error,
    reason: i.reason,
    statusCode: i.statusCode,
  });
  const created = incidents.filter((i) => i.created);
  if (created.length > 0) {
    await tx.incident.createMany({
      data: created.map((i) => ({ id: i.id, workspaceId: i.workspaceId, monitorId: i.monitorId, startedAt: i.startedAt, regions: i.regions, ...columns(i) })),
    });
  }
  // Joining or resolving an open incident is rare next to storing results: one statement each.
  for (const i of incidents.filter((i) => !i.created && i.changed)) {
    await tx.incident.update({ where: { id: i.id }, data: columns(i) });
  }
}

async function createDeliveries(tx: Tx, events: Prisma.AlertEventCreateManyInput[]): Promise<string[]> {
  const links = await tx.notificationMonitor.findMany({
    where: { monitorId: { in: [...new Set(events.map((e) => e.monitorId))] } },
    select: { monitorId: true, notificationId: true },
  });
  const deliveries: Prisma.NotificationDeliveryCreateManyInput[] = events.flatMap((event) =>
    links
      .filter((link) => link.monitorId === event.monitorId)
      .map((link) => ({
        id: uuidv7(),
        notificationId: link.notificationId,
        eventId: event.id!,
        event: event.type,
        monitorId: event.monitorId,
        incidentId: event.incidentId,
        eventAt: event.occurredAt,
      })),
  );
  if (deliveries.length > 0) await tx.notificationDelivery.createMany({ data: deliveries });
  return deliveries.map((d) => d.id!);
}
