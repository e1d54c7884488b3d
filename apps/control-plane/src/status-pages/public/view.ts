import { worstStatus, type ComponentStatus, type DayStatus, type IncidentStatus, type PageIndicator } from "@vigil/domain";

export type IncidentImpactLevel = "none" | "minor" | "major" | "critical";


/** What access control and the answers' headers need of a page. */
export interface PageHeader {
  id: string;
  slug: string;
  customDomain: string | null;
  title: string;
  accessType: string;
  accessVersion: number;
  /** The page's own language, which a visitor's choice overrides. */
  language: string;
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

export interface IncidentUpdateView {
  id: string;
  status: IncidentStatus;
  /** Markdown, rendered by markdownHtml where it is shown. */
  message: string;
  createdAt: Date;
}

/**
 * An incident as the page tells it: one opened by alerting (automatic, told
 * in the machine's words) or one written by people (with its updates), which
 * takes the place of the automatic incident it names.
 */
export interface IncidentView {
  id: string;
  kind: "automatic" | "written";
  title: string;
  status: IncidentStatus;
  /** Statuspage's impact: none, minor, major or critical. */
  impact: IncidentImpactLevel;
  /** The monitor of an automatic incident; null for a written one. */
  monitor: { id: string; name: string } | null;
  /** The page's components it affects, each with the impact shown. */
  components: { id: string; name: string; impact: ComponentStatus }[];
  /** Newest first; none for an automatic incident. */
  updates: IncidentUpdateView[];
  /** Markdown; empty when there is none. */
  postmortem: string;
  /** When the postmortem was last written; null without one. */
  postmortemAt: Date | null;
  startedAt: Date;
  /** Its newest change: the latest update, or its end. */
  updatedAt: Date;
  /** When an update last said monitoring, if that is the status now. */
  monitoringAt: Date | null;
  resolvedAt: Date | null;
}

/** One occurrence of a maintenance window naming components of the page. */
export interface MaintenanceOccurrenceView {
  /** The window's id and the occurrence's start (ms): `<windowId>.<ms>`. */
  id: string;
  windowId: string;
  title: string;
  /** Markdown, rendered by markdownHtml where it is shown. */
  message: string;
  startsAt: Date;
  endsAt: Date;
  /** Statuspage's words. */
  status: "scheduled" | "in_progress" | "completed";
  /** The page's components it names, in page order. */
  components: { id: string; name: string }[];
  createdAt: Date;
  updatedAt: Date;
}

/** What /history lists for a month, newest first: incidents and maintenances that took place. */
export type HistoryEntry = { kind: "incident"; incident: IncidentView } | { kind: "maintenance"; maintenance: MaintenanceOccurrenceView };

export interface HistoryMonth {
  /** The UTC month, as YYYY-MM. */
  month: string;
  entries: HistoryEntry[];
}

/** Everything a public page and its companions say. */
export interface PageView {
  page: PageHeader & {
    description: string;
    homepageUrl: string;
    contactUrl: string;
    icon: string;
    /** Whether its form takes subscriptions (the Atom feed is always there). */
    subscriptionsEnabled: boolean;
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
  /** Maintenances going on, then those starting within 7 days, soonest first. */
  maintenances: MaintenanceOccurrenceView[];
}

/** /status/<slug>/history: the page, and its past by month. */
export interface HistoryPageView extends PageView {
  history: HistoryMonth[];
}

/** /status/<slug>/incidents/<id>: the page, and the incident (null when the page has none of that id). */
export interface IncidentPageView extends PageView {
  incident: IncidentView | null;
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

/** A group's status: the worst of its components'. */
export const groupStatusOf = (group: GroupView): ComponentStatus => worstStatus(group.components.map((c) => c.status));
