import { groupStatusOf, type ComponentView, type IncidentView, type MaintenanceOccurrenceView, type PageView } from "./view";
import { incidentUrl } from "./addresses";

const iso = (at: Date) => at.toISOString();

/**
 * The page in the shape of Atlassian Statuspage's public /api/v2/summary.json,
 * so that tools made for it read Vigil's pages; Vigil's own figures
 * (uptime, monitor) are added fields. Groups are components with
 * `group: true`, as Statuspage has them.
 */
export function summaryOf(view: PageView) {
  const { page } = view;
  const component = (c: ComponentView) => ({
    id: c.id,
    name: c.name,
    status: c.status,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
    position: view.components.indexOf(c) + 1,
    description: c.description || null,
    showcase: c.type === "monitor",
    start_date: null,
    group_id: c.groupId,
    page_id: page.id,
    group: false,
    only_show_if_degraded: false,
    uptime_90d: c.uptime90d,
  });
  const groups = view.sections.flatMap((s) =>
    s.kind === "group"
      ? [
          {
            id: s.group.id,
            name: s.group.name,
            status: groupStatusOf(s.group),
            created_at: iso(s.group.createdAt),
            updated_at: iso(s.group.updatedAt),
            position: view.components.indexOf(s.group.components[0]!) + 1,
            description: null,
            showcase: false,
            start_date: null,
            group_id: null,
            page_id: page.id,
            group: true,
            only_show_if_degraded: false,
            components: s.group.components.map((c) => c.id),
          },
        ]
      : [],
  );
  return {
    page: { id: page.id, name: page.title, url: page.url, time_zone: "Etc/UTC", updated_at: iso(page.updatedAt) },
    components: [...view.components.map(component), ...groups],
    incidents: view.incidents.filter((i) => i.resolvedAt === null).map((i) => incidentOf(i, view, component)),
    scheduled_maintenances: view.maintenances.map((m) => maintenanceOf(m, view, component)),
    status: view.status,
  };
}

/**
 * An open incident in Statuspage's shape, its updates newest first as
 * `incident_updates`. Vigil keeps no per-update component changes, so
 * `affected_components` is null, as Statuspage has it for updates that
 * changed none. An automatic incident has no updates and names its monitor.
 */
function incidentOf(i: IncidentView, view: PageView, component: (c: ComponentView) => object) {
  const { page } = view;
  const named = new Set(i.components.map((c) => c.id));
  return {
    id: i.id,
    name: i.title,
    status: i.status,
    impact: i.impact,
    created_at: iso(i.startedAt),
    updated_at: iso(i.updatedAt),
    started_at: iso(i.startedAt),
    monitoring_at: i.monitoringAt && iso(i.monitoringAt),
    resolved_at: i.resolvedAt && iso(i.resolvedAt),
    shortlink: incidentUrl(page.url, i.id),
    page_id: page.id,
    incident_updates: i.updates.map((u) => ({
      id: u.id,
      status: u.status,
      body: u.message,
      incident_id: i.id,
      created_at: iso(u.createdAt),
      updated_at: iso(u.createdAt),
      display_at: iso(u.createdAt),
      affected_components: null,
      deliver_notifications: true,
      custom_tweet: null,
      tweet_id: null,
    })),
    components: view.components.filter((c) => named.has(c.id)).map(component),
    ...(i.monitor ? { monitor: i.monitor } : {}),
  };
}

/**
 * A maintenance going on or starting within 7 days, as Statuspage's
 * scheduled_maintenances have it (impact "maintenance", scheduled_for and
 * scheduled_until). Its message is its one update, in the status it is at;
 * its shortlink is its place on the page.
 */
function maintenanceOf(m: MaintenanceOccurrenceView, view: PageView, component: (c: ComponentView) => object) {
  const { page } = view;
  const named = new Set(m.components.map((c) => c.id));
  return {
    id: m.id,
    name: m.title,
    status: m.status,
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    monitoring_at: null,
    resolved_at: m.status === "completed" ? iso(m.endsAt) : null,
    shortlink: `${page.url}#maintenance-${m.id}`,
    started_at: iso(m.startsAt),
    scheduled_for: iso(m.startsAt),
    scheduled_until: iso(m.endsAt),
    impact: "maintenance",
    page_id: page.id,
    incident_updates: [
      {
        id: `${m.id}.update`,
        status: m.status,
        body: m.message,
        incident_id: m.id,
        created_at: iso(m.updatedAt),
        updated_at: iso(m.updatedAt),
        display_at: iso(m.updatedAt),
        affected_components: null,
        deliver_notifications: true,
        custom_tweet: null,
        tweet_id: null,
      },
    ],
    components: view.components.filter((c) => named.has(c.id)).map(component),
  };
}
