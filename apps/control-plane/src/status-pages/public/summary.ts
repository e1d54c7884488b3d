import { groupStatusOf, type ComponentView, type PageView } from "./view";
import { incidentTitle } from "./words";

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
    incidents: view.incidents
      .filter((i) => i.resolvedAt === null)
      .map((i) => ({
        id: i.id,
        name: incidentTitle(i),
        // Vigil's incidents are opened by the checks themselves, before anyone has looked.
        status: "investigating",
        impact: i.severity === "error" ? "major" : "minor",
        created_at: iso(i.startedAt),
        updated_at: iso(i.startedAt),
        started_at: iso(i.startedAt),
        monitoring_at: null,
        resolved_at: null,
        shortlink: page.url,
        page_id: page.id,
        incident_updates: [],
        components: view.components.filter((c) => c.monitorId === i.monitorId).map(component),
        monitor: { id: i.monitorId, name: i.monitorName },
      })),
    scheduled_maintenances: [],
    status: view.status,
  };
}
