import type { Prisma, PrismaClient } from "@vigil/db";
import { incidentImpactOf, type ComponentStatus, type IncidentImpact, type IncidentStatus } from "@vigil/domain";
import type { IncidentView } from "./view";
import { incidentTitle, wordsOf } from "./words";

/** summary.json names incidents in English, as Statuspage's does. */
const ENGLISH = wordsOf("en");

/** What the page's incidents are told with: its id, its components in page order, and its monitors' names. */
export interface IncidentContext {
  pageId: string;
  components: readonly { id: string; name: string; monitorId: string | null }[];
  monitorNames: ReadonlyMap<string, string>;
}

/** Which incidents to read: of those written (never internal ones) and of the automatic ones (never those a written one tells of). */
export interface IncidentFilter {
  written: Prisma.StatusPageIncidentWhereInput;
  automatic: Prisma.IncidentWhereInput;
  /** At most this many of each kind, newest first. */
  take?: number;
}

const writtenInclude = {
  components: { orderBy: { position: "asc" } },
  updates: { orderBy: [{ createdAt: "desc" }, { id: "desc" }] },
} as const satisfies Prisma.StatusPageIncidentInclude;

type WrittenRow = Prisma.StatusPageIncidentGetPayload<{ include: typeof writtenInclude }>;
type AutomaticRow = Prisma.IncidentGetPayload<object>;

const newestFirst = (a: IncidentView, b: IncidentView) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The page's incidents that match, newest first: those people wrote (but
 * internal ones) and those alerting opened for the page's monitors (but
 * those a written incident of the page tells of, shown or kept internal).
 */
export async function loadIncidents(prisma: PrismaClient, context: IncidentContext, filter: IncidentFilter): Promise<IncidentView[]> {
  const monitorIds = [...new Set(context.components.flatMap((c) => (c.monitorId ? [c.monitorId] : [])))];
  const [written, automatic] = await Promise.all([
    prisma.statusPageIncident.findMany({
      where: { AND: [filter.written, { pageId: context.pageId, internal: false }] },
      include: writtenInclude,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: filter.take,
    }),
    monitorIds.length === 0
      ? []
      : prisma.incident.findMany({
          where: { AND: [filter.automatic, { monitorId: { in: monitorIds }, pageIncidents: { none: { pageId: context.pageId } } }] },
          orderBy: [{ startedAt: "desc" }, { id: "desc" }],
          take: filter.take,
        }),
  ]);
  return [...written.map((row) => writtenView(row, context)), ...automatic.map((row) => automaticView(row, context))].sort(newestFirst);
}

function writtenView(row: WrittenRow, context: IncidentContext): IncidentView {
  const names = new Map(context.components.map((c) => [c.id, c.name]));
  const components = row.components.flatMap((c) => (names.has(c.componentId) ? [{ id: c.componentId, name: names.get(c.componentId)!, impact: c.impact as IncidentImpact }] : []));
  const status = row.status as IncidentStatus;
  const latest = row.updates[0];
  return {
    id: row.id,
    kind: "written",
    title: row.title,
    status,
    impact: incidentImpactOf(components),
    monitor: null,
    components,
    updates: row.updates.map((u) => ({ id: u.id, status: u.status as IncidentStatus, message: u.message, createdAt: u.createdAt })),
    postmortem: row.postmortem,
    postmortemAt: row.postmortemAt,
    startedAt: row.createdAt,
    updatedAt: new Date(Math.max(row.updatedAt.getTime(), latest?.createdAt.getTime() ?? 0)),
    monitoringAt: status === "monitoring" ? (latest?.createdAt ?? null) : null,
    resolvedAt: row.resolvedAt,
  };
}

function automaticView(row: AutomaticRow, context: IncidentContext): IncidentView {
  const severity = row.severity === "degraded" ? "degraded" : "error";
  const impact: ComponentStatus = severity === "error" ? "major_outage" : "degraded_performance";
  const components = context.components.filter((c) => c.monitorId === row.monitorId).map((c) => ({ id: c.id, name: c.name, impact }));
  const told = { kind: "automatic", impact: severity === "error" ? "major" : "minor", monitor: { id: row.monitorId, name: context.monitorNames.get(row.monitorId) ?? "" }, components } as const;
  return {
    id: row.id,
    ...told,
    title: incidentTitle(ENGLISH, { ...told, title: "" }),
    // Alerting opens an incident before anyone has looked, and closes it when the checks pass again.
    status: row.resolvedAt ? "resolved" : "investigating",
    updates: [],
    postmortem: "",
    postmortemAt: null,
    startedAt: row.startedAt,
    updatedAt: row.resolvedAt ?? row.startedAt,
    monitoringAt: null,
    resolvedAt: row.resolvedAt,
  };
}

/** Open incidents first (newest first), then the others (newest first), at most `max`. */
export const openFirst = (incidents: readonly IncidentView[], max: number) =>
  [...incidents.filter((i) => i.resolvedAt === null), ...incidents.filter((i) => i.resolvedAt !== null)].slice(0, max);

/** The impacts that open written incidents give the page's components, by component id. */
export function writtenImpacts(incidents: readonly IncidentView[]): Map<string, ComponentStatus[]> {
  const impacts = new Map<string, ComponentStatus[]>();
  for (const incident of incidents) {
    if (incident.kind !== "written" || incident.resolvedAt !== null) continue;
    for (const c of incident.components) impacts.set(c.id, [...(impacts.get(c.id) ?? []), c.impact]);
  }
  return impacts;
}
