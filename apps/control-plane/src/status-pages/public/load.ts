import type { PrismaClient } from "@vigil/db";
import {
  PAGE_HISTORY,
  componentStatusOf,
  dayStatusOf,
  pageStatusOf,
  percentilesFromBuckets,
  uptimePercent,
  type DayCounts,
  type MonitorStatus,
  type RegionVerdict,
  worstStatus,
} from "@vigil/domain";
import { dailyRollups, dateOf } from "../../results/aggregates";
import type { Statuses } from "../../status/statuses";
import { pageUrl } from "./addresses";
import { loadIncidents, openFirst, writtenImpacts, type IncidentContext } from "./incidents";
import { loadCurrentMaintenances, loadMaintenances } from "./maintenances";
import {
  componentsOf,
  sectionsOf,
  type ComponentView,
  type DayView,
  type HistoryEntry,
  type HistoryMonth,
  type HistoryPageView,
  type IncidentPageView,
  type PageView,
} from "./view";

const DAY_MS = 86_400_000;

/** Where a request found the page: its slug under /status, or the custom domain it was sent to. */
export type PageAddress = { kind: "slug"; slug: string } | { kind: "host"; host: string };

export interface PageSources {
  prisma: PrismaClient;
  statuses: Pick<Statuses, "regions">;
  /** PUBLIC_URL, the base of a page's address when it has no custom domain. */
  publicUrl: string;
}

/** The published page at an address, or null (unknown and unpublished pages are the same to visitors). */
export async function findPublishedPage(prisma: PrismaClient, address: PageAddress) {
  const where = address.kind === "slug" ? { slug: address.slug } : { customDomain: address.host };
  const page = await prisma.statusPage.findUnique({ where });
  return page?.published ? page : null;
}

type PageRow = NonNullable<Awaited<ReturnType<typeof findPublishedPage>>>;

/**
 * Reads what a page shows from the aggregates only (never check_results):
 * daily counts for the bars and daily latency buckets for public monitors'
 * medians (both the roll-ups across regions), monitors' statuses, and the
 * incidents: those alerting opened and those people wrote.
 */
export async function loadPageView(sources: PageSources, row: PageRow, now = new Date()): Promise<PageView> {
  return (await loadPage(sources, row, now)).view;
}

async function loadPage(sources: PageSources, row: PageRow, now: Date): Promise<{ view: PageView; context: IncidentContext }> {
  const { prisma } = sources;
  const [components, groups] = await Promise.all([
    prisma.statusPageComponent.findMany({
      where: { pageId: row.id },
      include: { monitor: { select: { id: true, name: true, status: true, public: true } } },
    }),
    prisma.statusPageComponentGroup.findMany({ where: { pageId: row.id } }),
  ]);
  const monitors = new Map(components.flatMap((c) => (c.monitor ? [[c.monitor.id, c.monitor] as const] : [])));
  const monitorIds = [...monitors.keys()];
  const publicIds = [...monitors.values()].filter((m) => m.public).map((m) => m.id);
  const firstDay = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - (PAGE_HISTORY.barDays - 1) * DAY_MS);
  const incidentsSince = new Date(now.getTime() - PAGE_HISTORY.recentIncidentDays * DAY_MS);

  const [history, verdicts] = await Promise.all([
    dailyRollups(prisma, monitorIds, publicIds, firstDay),
    regionVerdictsOfFailing(sources.statuses, [...monitors.values()]),
  ]);
  const dates = Array.from({ length: PAGE_HISTORY.barDays }, (_, i) => dateOf(new Date(firstDay.getTime() + i * DAY_MS)));

  const barOf = (monitorId: string): { days: DayView[]; uptime90d: number | null } => {
    const total: DayCounts = { successful: 0, degraded: 0, failed: 0 };
    const days = dates.map((date) => {
      const day = history.counts(monitorId, date) ?? { successful: 0, degraded: 0, failed: 0 };
      total.successful += day.successful;
      total.degraded += day.degraded;
      total.failed += day.failed;
      const buckets = history.buckets(monitorId, date);
      return {
        date,
        status: dayStatusOf(day),
        checks: day.successful + day.degraded + day.failed,
        failed: day.failed,
        uptime: uptimePercent(day),
        p50Ms: buckets ? percentilesFromBuckets(buckets, [50])[50] : null,
      };
    });
    return { days, uptime90d: uptimePercent(total) };
  };

  const views = components.map((c): ComponentView & { groupOrder: number } => {
    const monitor = c.monitor;
    return {
      id: c.id,
      name: c.name || monitor?.name || "",
      description: c.description,
      type: monitor ? "monitor" : "static",
      monitorId: monitor?.id ?? null,
      status: monitor ? componentStatusOf(monitor.status as MonitorStatus, verdicts.get(monitor.id) ?? []) : "operational",
      position: c.position,
      groupId: c.groupId,
      groupOrder: c.groupOrder,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      ...(monitor ? barOf(monitor.id) : { days: [], uptime90d: null }),
    };
  });
  const context: IncidentContext = {
    pageId: row.id,
    // In page order, so that an automatic incident names its components as the page lists them.
    components: componentsOf(sectionsOf(views, groups)),
    monitorNames: new Map([...monitors.values()].map((m) => [m.id, m.name])),
  };
  const open = { OR: [{ resolvedAt: null }, { resolvedAt: { gte: incidentsSince } }] };
  const [incidents, maintenances] = await Promise.all([
    loadIncidents(prisma, context, { written: open, automatic: open }),
    loadCurrentMaintenances(prisma, row.id, context.components, now),
  ]);

  // A component an open written incident names shows the worse of its monitor's status and the impact written;
  // one a maintenance going on names is under maintenance, whatever they say.
  const impacts = writtenImpacts(incidents);
  const underMaintenance = new Set(maintenances.filter((m) => m.status === "in_progress").flatMap((m) => m.components.map((c) => c.id)));
  const sections = sectionsOf(
    views.map((v) => ({ ...v, status: underMaintenance.has(v.id) ? "under_maintenance" : worstStatus([v.status, ...(impacts.get(v.id) ?? [])]) })),
    groups,
  );
  const ordered = componentsOf(sections);

  const changes = [
    row.updatedAt,
    ...components.map((c) => c.updatedAt),
    ...groups.map((g) => g.updatedAt),
    ...incidents.map((i) => i.updatedAt),
    ...maintenances.map((m) => m.updatedAt),
  ];
  const view: PageView = {
    page: {
      id: row.id,
      slug: row.slug,
      customDomain: row.customDomain,
      accessType: row.accessType,
      accessVersion: row.accessVersion,
      language: row.language,
      title: row.title,
      description: row.description,
      homepageUrl: row.homepageUrl,
      contactUrl: row.contactUrl,
      icon: row.icon,
      subscriptionsEnabled: row.subscriptionsEnabled,
      url: pageUrl(row, sources.publicUrl),
      createdAt: row.createdAt,
      updatedAt: new Date(Math.max(...changes.map((d) => d.getTime()))),
    },
    status: pageStatusOf(ordered.map((c) => c.status)),
    sections,
    components: ordered,
    incidents: openFirst(incidents, PAGE_HISTORY.maxIncidents),
    maintenances,
  };
  return { view, context };
}

/** The UTC month of a time, as YYYY-MM. */
const monthOf = (at: Date) => at.toISOString().slice(0, 7);

/**
 * The page with its incidents and its maintenances that started (those
 * started in the last PAGE_HISTORY.historyMonths UTC months, at most
 * PAGE_HISTORY.historyMaxIncidents of each) by month, newest first (/history).
 */
export async function loadHistoryView(sources: PageSources, row: PageRow, now = new Date()): Promise<HistoryPageView> {
  const { view, context } = await loadPage(sources, row, now);
  const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (PAGE_HISTORY.historyMonths - 1), 1));
  const [incidents, maintenances] = await Promise.all([
    loadIncidents(sources.prisma, context, {
      written: { createdAt: { gte: since } },
      automatic: { startedAt: { gte: since } },
      take: PAGE_HISTORY.historyMaxIncidents,
    }),
    loadMaintenances(sources.prisma, row.id, context.components, { from: since, to: new Date(now.getTime() + 1), now, take: PAGE_HISTORY.historyMaxIncidents }),
  ]);
  const entries: (HistoryEntry & { at: Date })[] = [
    ...incidents.slice(0, PAGE_HISTORY.historyMaxIncidents).map((incident) => ({ kind: "incident" as const, incident, at: incident.startedAt })),
    // Started in the range: one that began before it and still went on is the month before's.
    ...maintenances.filter((m) => m.startsAt >= since).map((maintenance) => ({ kind: "maintenance" as const, maintenance, at: maintenance.startsAt })),
  ].sort((a, b) => b.at.getTime() - a.at.getTime());
  const months: HistoryMonth[] = [];
  for (const { at, ...entry } of entries) {
    const month = monthOf(at);
    if (months.at(-1)?.month !== month) months.push({ month, entries: [] });
    months.at(-1)!.entries.push(entry);
  }
  return { ...view, history: months };
}

/** The page with one of its incidents, written or automatic, by id; null when the page shows none of that id (/incidents/<id>). */
export async function loadIncidentPageView(sources: PageSources, row: PageRow, id: string, now = new Date()): Promise<IncidentPageView> {
  const { view, context } = await loadPage(sources, row, now);
  const [incident] = await loadIncidents(sources.prisma, context, { written: { id }, automatic: { id } });
  return { ...view, incident: incident ?? null };
}

/**
 * Region verdicts decide only between a partial and a major outage, so they
 * are read for failing monitors alone: a calm page costs no region reads.
 */
async function regionVerdictsOfFailing(
  statuses: Pick<Statuses, "regions">,
  monitors: readonly { id: string; status: string }[],
): Promise<Map<string, RegionVerdict[]>> {
  const failing = monitors.filter((m) => m.status === "error");
  const regions = await Promise.all(failing.map((m) => statuses.regions(m.id)));
  return new Map(failing.map((m, i) => [m.id, regions[i]!.map((r) => r.status as RegionVerdict)]));
}
