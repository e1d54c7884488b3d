import { v7 as uuidv7 } from "uuid";
import type { Prisma } from "@vigil/db";
import {
  absorbingIncident,
  dependenciesFirst,
  inMaintenance,
  eventOfTransition,
  type DependencyState,
  worseStatus,
  type ACKNOWLEDGED_EVENT,
  type AlertEventType,
  type CERTIFICATE_EXPIRING_EVENT,
  type CERTIFICATE_RENEWED_EVENT,
  type SLO_BURN_RATE_ENDED_EVENT,
  type SLO_BURN_RATE_EVENT,
  type REMINDER_EVENT,
  type RegionReport,
} from "@vigil/domain";
import type { Transition } from "../status/evaluate";
import type { EventDetails } from "./message";
import { absorbedBy, loadDependencies, saveAlsoAffected, type AbsorbedFailure } from "./dependents";
import { windowsOfMonitors } from "../maintenance/repository";

type Tx = Prisma.TransactionClient;

/** An alert_events row. */
export interface EventRow {
  id: string;
  workspaceId: string;
  monitorId: string;
  /** Null for certificate warnings and renewals, which belong to no incident. */
  incidentId: string | null;
  type:
    | AlertEventType
    | typeof ACKNOWLEDGED_EVENT
    | typeof REMINDER_EVENT
    | typeof CERTIFICATE_EXPIRING_EVENT
    | typeof CERTIFICATE_RENEWED_EVENT
    | typeof SLO_BURN_RATE_EVENT
    | typeof SLO_BURN_RATE_ENDED_EVENT;
  fromStatus: string;
  toStatus: string;
  occurredAt: Date;
  details: EventDetails;
}

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

/** What alerting needs of a transition: one of stored results or a heartbeat's, or a failure an incident absorbed and released. */
type AlertTransition = Pick<Transition, "from" | "to" | "at" | "regions" | "newest" | "cause"> & { monitor: AbsorbedFailure["monitor"] };

/**
 * Which regions a message names, and the check it leads with: the failing
 * regions and the first of them for an alert; for a recovery the regions
 * that report, led by the newest check.
 */
function affected(event: AlertEventType, t: AlertTransition): { named: RegionReport[]; lead: RegionReport | undefined } {
  if (event === "monitor.failed") {
    const named = t.regions.filter((r) => r.status === "error");
    return { named, lead: named[0] };
  }
  if (event === "monitor.degraded") {
    const named = t.regions.filter((r) => r.status === "error" || r.status === "degraded");
    return { named, lead: named.find((r) => r.status === "degraded") ?? named[0] };
  }
  return { named: t.regions.filter((r) => r.status !== "unknown"), lead: t.regions.find((r) => r.region === t.newest) };
}

/** The open incidents of `monitorIds`, by monitor. */
async function openIncidents(tx: Tx, monitorIds: readonly string[]): Promise<Map<string, OpenIncident>> {
  const open = new Map<string, OpenIncident>();
  for (const row of await tx.incident.findMany({ where: { monitorId: { in: [...monitorIds] }, resolvedAt: null } })) {
    open.set(row.monitorId, { ...row, created: false, changed: false });
  }
  return open;
}

/**
 * Turns status transitions into incidents, events and deliveries, in the
 * transaction that caused them (the outbox): a failure opens an incident (or
 * joins the open one), a recovery resolves it, each event gets one delivery
 * per channel linked to its monitor. A failure of a monitor whose dependency
 * has an open incident is recorded under that incident instead, and sends
 * nothing (docs/alerting.md "Dependencies"); when that incident resolves, each
 * monitor it absorbed that is still failing alerts as a failure of its own.
 * A failure of a monitor in maintenance at its time opens no incident and
 * sends nothing (docs/alerting.md "Maintenance"); the maintenance sweep
 * alerts at the window's end if it still goes on.
 * Returns the ids of the events that have deliveries, to be queued once the
 * transaction has committed.
 */
export async function recordTransitions(tx: Tx, transitions: readonly Transition[]): Promise<string[]> {
  const alerting = transitions.flatMap((t) => {
    const event = eventOfTransition(t.from, t.to);
    return event ? [{ ...t, event }] : [];
  });
  if (alerting.length === 0) return [];
  const first = await recordRound(tx, alerting);
  // Releasing makes no resolution, so one round of it is all there is.
  const released = (await absorbedBy(tx, first.resolved)).flatMap((failure) => {
    const event = eventOfTransition("active", failure.status);
    if (!event || event === "monitor.recovered") return [];
    const at = first.resolvedAt.get(failure.incidentId)!;
    return [{ ...failure, from: "active" as const, to: failure.status, at, event }];
  });
  const second = released.length > 0 ? await recordRound(tx, released) : { eventIds: [] };
  return [...first.eventIds, ...second.eventIds];
}

/** recordTransitions of transitions that may absorb or resolve each other: incidents, absorbed failures and events written. */
async function recordRound(tx: Tx, alerting: readonly (AlertTransition & { event: AlertEventType })[]) {
  const monitorIds = [...new Set(alerting.map((t) => t.monitor.id))];
  const graph = await loadDependencies(tx, monitorIds);
  const open = await openIncidents(tx, [...new Set([...monitorIds, ...graph.keys()])]);
  const stateOf = (id: string): DependencyState | undefined => {
    const node = graph.get(id);
    return node && { ...node, openIncident: open.get(id)?.id };
  };
  // A dependency's incident is then open before the failures it absorbs are judged.
  const place = new Map(dependenciesFirst(monitorIds, (id) => graph.get(id)?.dependsOn ?? []).map((id, index) => [id, index]));
  const ordered = [...alerting].sort((a, b) => place.get(a.monitor.id)! - place.get(b.monitor.id)!);
  const maintenance = await windowsOfMonitors(tx, [...new Set(alerting.filter((t) => t.event !== "monitor.recovered").map((t) => t.monitor.id))]);

  const incidents: OpenIncident[] = [];
  const events: EventRow[] = [];
  const absorbed: { incidentId: string; at: Date; failure: AbsorbedFailure }[] = [];
  for (const t of ordered) {
    const { named, lead } = affected(t.event, t);
    let incident = open.get(t.monitor.id);
    if (t.event !== "monitor.recovered" && inMaintenance(maintenance.get(t.monitor.id) ?? [], t.at)) {
      // An incident open since before the window keeps its worst severity, unsaid.
      if (incident) {
        incident.severity = worseStatus(incident.severity as "error", t.to);
        incident.changed = true;
        if (!incidents.includes(incident)) incidents.push(incident);
      }
      continue;
    }
    if (t.event === "monitor.recovered") {
      // A monitor that failed before incidents were recorded has none to resolve, and nobody to tell.
      if (!incident) continue;
      incident.resolvedAt = t.at;
      incident.changed = true;
      open.delete(t.monitor.id);
    } else if (!incident) {
      const absorbing = absorbingIncident(t.monitor.id, stateOf);
      if (absorbing) {
        absorbed.push({ incidentId: absorbing.incident, at: t.at, failure: { monitor: t.monitor, status: t.to, regions: t.regions, newest: t.newest, ...(t.cause ? { cause: t.cause } : {}) } });
        continue;
      }
      incident = {
        id: uuidv7(),
        monitorId: t.monitor.id,
        workspaceId: t.monitor.workspaceId,
        startedAt: t.at,
        severity: t.to,
        regions: named.map((r) => r.region),
        error: t.to === "error" ? (lead?.error ?? t.cause?.error ?? null) : null,
        reason: t.to === "error" ? (lead?.reason ?? t.cause?.reason ?? null) : null,
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
        Object.assign(incident, { error: lead.error, reason: lead.reason, statusCode: lead.statusCode });
      }
      incident.changed = true;
    }
    if (!incidents.includes(incident)) incidents.push(incident);
    const details: EventDetails = {
      monitor: { id: t.monitor.id, name: t.monitor.name, kind: t.monitor.kind, target: t.monitor.target },
      status: t.to,
      incident: { id: incident.id, startedAt: incident.startedAt.toISOString(), resolvedAt: incident.resolvedAt?.toISOString() ?? null },
      regions: named,
      error: lead?.status === "error" ? lead.error : (t.cause?.error ?? null),
      reason: lead?.status === "error" ? lead.reason : (t.cause?.reason ?? null),
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
      details,
    });
  }

  await saveIncidents(tx, incidents);
  await saveAlsoAffected(tx, absorbed);
  await insertEvents(tx, events);
  const resolved = incidents.filter((i) => i.resolvedAt !== null);
  return {
    eventIds: await createDeliveries(tx, events),
    resolved: resolved.map((i) => i.id),
    resolvedAt: new Map(resolved.map((i) => [i.id, i.resolvedAt!])),
  };
}

// The writes below are single statements over unnest()ed arrays: an outage makes hundreds of
// incidents, events and deliveries per batch, and one statement costs a fraction of a row-by-row
// write (or of an ORM's multi-row insert) both in PostgreSQL and in this process.

async function saveIncidents(tx: Tx, incidents: OpenIncident[]): Promise<void> {
  // Resolutions first: a monitor that recovered and failed again within one batch closes its open
  // incident before the new one is inserted (one open incident per monitor).
  const changed = incidents.filter((i) => !i.created && i.changed);
  if (changed.length > 0) {
    await tx.$executeRaw`
      UPDATE incidents SET severity = c.severity, resolved_at = c.resolved_at, error = c.error, reason = c.reason, status_code = c.status_code
      FROM unnest(
        ${changed.map((i) => i.id)}::text[], ${changed.map((i) => i.severity)}::text[], ${changed.map((i) => i.resolvedAt)}::timestamp(3)[],
        ${changed.map((i) => i.error)}::text[], ${changed.map((i) => i.reason)}::text[], ${changed.map((i) => i.statusCode)}::int[]
      ) AS c(id, severity, resolved_at, error, reason, status_code)
      WHERE incidents.id = c.id`;
  }
  const created = incidents.filter((i) => i.created);
  if (created.length > 0) {
    // unnest() cannot take an array of arrays; region ids (a fixed list, domain/regions.ts) have no comma.
    await tx.$executeRaw`
      INSERT INTO incidents (id, workspace_id, monitor_id, started_at, regions, severity, resolved_at, error, reason, status_code)
      SELECT i.id, i.workspace_id, i.monitor_id, i.started_at, string_to_array(i.regions, ','), i.severity, i.resolved_at, i.error, i.reason, i.status_code
      FROM unnest(
        ${created.map((i) => i.id)}::text[], ${created.map((i) => i.workspaceId)}::text[], ${created.map((i) => i.monitorId)}::text[],
        ${created.map((i) => i.startedAt)}::timestamp(3)[], ${created.map((i) => i.regions.join(","))}::text[],
        ${created.map((i) => i.severity)}::text[], ${created.map((i) => i.resolvedAt)}::timestamp(3)[], ${created.map((i) => i.error)}::text[],
        ${created.map((i) => i.reason)}::text[], ${created.map((i) => i.statusCode)}::int[]
      ) AS i(id, workspace_id, monitor_id, started_at, regions, severity, resolved_at, error, reason, status_code)`;
  }
}

/**
 * Inserts events; returns the ids of those inserted. An event whose id exists
 * already is left out: a reminder's id is the same on every control plane, so
 * the one that inserts it first is the one that sends it.
 */
/** An event about a monitor outside any incident (certificate warnings, SLO burns): its status neither moves nor is told. */
export function monitorEvent(
  monitor: { id: string; workspaceId: string; status: string },
  type: EventRow["type"],
  occurredAt: Date,
  details: EventDetails,
  id: string = uuidv7(),
): EventRow {
  return { id, workspaceId: monitor.workspaceId, monitorId: monitor.id, incidentId: null, type, fromStatus: monitor.status, toStatus: monitor.status, occurredAt, details };
}

export async function insertEvents(tx: Tx, events: EventRow[]): Promise<Set<string>> {
  const inserted = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO alert_events (id, workspace_id, monitor_id, incident_id, type, from_status, to_status, occurred_at, details)
    SELECT * FROM unnest(
      ${events.map((e) => e.id)}::text[], ${events.map((e) => e.workspaceId)}::text[], ${events.map((e) => e.monitorId)}::text[],
      ${events.map((e) => e.incidentId)}::text[], ${events.map((e) => e.type)}::text[], ${events.map((e) => e.fromStatus)}::text[],
      ${events.map((e) => e.toStatus)}::text[], ${events.map((e) => e.occurredAt)}::timestamp(3)[],
      ${events.map((e) => JSON.stringify(e.details))}::jsonb[])
    ON CONFLICT (id) DO NOTHING
    RETURNING id`;
  return new Set(inserted.map((row) => row.id));
}

export async function createDeliveries(tx: Tx, events: EventRow[]): Promise<string[]> {
  const links = await tx.notificationMonitor.findMany({
    where: { monitorId: { in: [...new Set(events.map((e) => e.monitorId))] } },
    select: { monitorId: true, notificationId: true },
  });
  const channelsOf = new Map<string, string[]>();
  for (const link of links) channelsOf.set(link.monitorId, [...(channelsOf.get(link.monitorId) ?? []), link.notificationId]);
  return insertDeliveries(tx, events.flatMap((event) => (channelsOf.get(event.monitorId) ?? []).map((notificationId) => ({ notificationId, event }))));
}

/** Writes one pending delivery per (event, channel) pair; returns the ids of the events that have any. */
export async function insertDeliveries(tx: Tx, pairs: readonly { notificationId: string; event: EventRow }[]): Promise<string[]> {
  const deliveries = pairs.map((pair) => ({ id: uuidv7(), ...pair }));
  if (deliveries.length === 0) return [];
  await tx.$executeRaw`
    INSERT INTO notification_deliveries (id, notification_id, event_id, event, monitor_id, incident_id, event_at)
    SELECT * FROM unnest(
      ${deliveries.map((d) => d.id)}::text[], ${deliveries.map((d) => d.notificationId)}::text[], ${deliveries.map((d) => d.event.id)}::text[],
      ${deliveries.map((d) => d.event.type)}::text[], ${deliveries.map((d) => d.event.monitorId)}::text[],
      ${deliveries.map((d) => d.event.incidentId)}::text[], ${deliveries.map((d) => d.event.occurredAt)}::timestamp(3)[])`;
  return [...new Set(deliveries.map((d) => d.event.id))];
}
