import { COMPONENT_STATUSES, type ComponentStatus, type DayStatus, type PageIndicator } from "@vigil/domain";


/** What access control and the answers' headers need of a page. */
export interface PageHeader {
  id: string;
  slug: string;
  customDomain: string | null;
  title: string;
  accessType: string;
  accessVersion: number;
}

/** One day of a component's bar: its checks in all of the monitor's regions. */
export interface DayView {
  /** The UTC day, as YYYY-MM-DD. */
  date: string;
  status: DayStatus;
  checks: number;
  failed: number;
  /** % of checks that did not fail; null without checks. */
  uptime: number | null;
  /** The day's median response time, only for monitors whose response times are public. */
  p50Ms: number | null;
}

export interface ComponentView {
  id: string;
  name: string;
  description: string;
  type: "monitor" | "static";
  monitorId: string | null;
  status: ComponentStatus;
  position: number;
  groupId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The bar, oldest day first; empty for a static component, which has no checks. */
  days: DayView[];
  uptime90d: number | null;
}

export interface GroupView {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  components: ComponentView[];
}

/** What the page lists in order: a component on its own, or a group of them. */
export type Section = { kind: "component"; component: ComponentView } | { kind: "group"; group: GroupView };

export interface IncidentView {
  id: string;
  monitorId: string;
  monitorName: string;
  /** The page's components that show the incident's monitor. */
  components: { id: string; name: string }[];
  severity: "degraded" | "error";
  startedAt: Date;
  resolvedAt: Date | null;
}

/** Everything a public page and its companions say. */
export interface PageView {
  page: PageHeader & {
    description: string;
    homepageUrl: string;
    contactUrl: string;
    icon: string;
    /** The page's own address (custom domain or /status/<slug> under PUBLIC_URL). */
    url: string;
    createdAt: Date;
    /** The newest change of the page, its components, groups or incidents. */
    updatedAt: Date;
  };
  status: { indicator: PageIndicator; description: string };
  sections: Section[];
  /** Every component in page order (the order of `sections`, groups expanded). */
  components: ComponentView[];
  /** The open incidents first, then the newest. */
  incidents: IncidentView[];
}

interface Ordered {
  position: number;
  createdAt: Date;
  id: string;
}

const byOrder = (a: Ordered, b: Ordered) =>
  a.position - b.position || a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The page's order: ungrouped components by their order (position, then
 * creation), and each group where its first component would be (the lowest
 * order of its components, then the group's creation); inside a group,
 * components by their group order, then creation. A group without
 * components is not shown.
 */
export function sectionsOf(
  components: readonly (ComponentView & { groupOrder: number })[],
  groups: readonly Omit<GroupView, "components">[],
): Section[] {
  const placed: (Ordered & { section: Section })[] = [];
  for (const component of components.filter((c) => c.groupId === null || !groups.some((g) => g.id === c.groupId))) {
    placed.push({ ...component, section: { kind: "component", component: { ...component, groupId: null } } });
  }
  for (const group of groups) {
    const members = components.filter((c) => c.groupId === group.id);
    if (members.length === 0) continue;
    const inGroup = [...members].sort((a, b) => byOrder({ ...a, position: a.groupOrder }, { ...b, position: b.groupOrder }));
    placed.push({
      position: Math.min(...members.map((c) => c.position)),
      createdAt: group.createdAt,
      id: group.id,
      section: { kind: "group", group: { ...group, components: inGroup } },
    });
  }
  return placed.sort(byOrder).map((p) => p.section);
}

export const componentsOf = (sections: readonly Section[]): ComponentView[] =>
  sections.flatMap((s) => (s.kind === "component" ? [s.component] : s.group.components));

/** A group's status: the worst of its components' (the statuses are listed from best to worst). */
export function groupStatusOf(group: GroupView): ComponentStatus {
  return group.components.reduce<ComponentStatus>(
    (worst, c) => (COMPONENT_STATUSES.indexOf(c.status) > COMPONENT_STATUSES.indexOf(worst) ? c.status : worst),
    "operational",
  );
}
