import type { ComponentStatus, DayStatus, IncidentStatus, PageIndicator, PageLanguage } from "@vigil/domain";
import { translatorOf, type Translate } from "./i18n/messages";
import type { IncidentView } from "./view";

/**
 * What a page says in one language: its translated words (i18next) and its
 * figures and times formatted for that language (Intl). Times are in UTC; the
 * page's script shows them in the visitor's zone (html.tsx).
 */
export interface Words {
  lang: PageLanguage;
  t: Translate;
  /** A link to one of the page's own views, keeping a language the visitor chose by `?lang=`. */
  href(path: string): string;
  count(n: number): string;
  /** "Nov 23, 2026, 4:40 PM UTC" in English. */
  time(at: Date): string;
  /** A UTC day (YYYY-MM-DD): "Nov 23, 2026" in English. */
  day(date: string): string;
  /** A UTC month (YYYY-MM): "November 2026" in English. */
  month(month: string): string;
  /** "2 days 3 hr", "1 hr 5 min", "45 sec" in English: the two largest units. */
  duration(ms: number): string;
  /** An uptime share in percent, two decimals, never rounded up to 100 % while a check failed. */
  uptime(percent: number | null): string;
  componentStatus(status: ComponentStatus): string;
  dayStatus(status: DayStatus): string;
  incidentStatus(status: IncidentStatus): string;
  /** The banner's words: Statuspage's indicator, which says none while components are only under maintenance. */
  overall(indicator: PageIndicator, underMaintenance: boolean): string;
}

/** The symbols that say each component status, so that no status is told by colour alone. */
export const COMPONENT_STATUS_SYMBOLS: Record<ComponentStatus, string> = {
  operational: "✓",
  under_maintenance: "⚙",
  degraded_performance: "!",
  partial_outage: "✕",
  major_outage: "✕",
};

const UNITS = [
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1],
] as const;

/** The words of `lang`; `explicit` when the visitor chose it by `?lang=`, which links then keep. */
export function wordsOf(lang: PageLanguage, explicit = false): Words {
  const t = translatorOf(lang);
  const numbers = new Intl.NumberFormat(lang);
  const times = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  const days = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeZone: "UTC" });
  const months = new Intl.DateTimeFormat(lang, { month: "long", year: "numeric", timeZone: "UTC" });
  const percent = new Intl.NumberFormat(lang, { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const units = UNITS.map(([unit, seconds]) => [new Intl.NumberFormat(lang, { style: "unit", unit, unitDisplay: "short" }), seconds] as const);
  return {
    lang,
    t,
    href: (path) => (explicit ? `${path}?lang=${lang}` : path),
    count: (n) => numbers.format(n),
    time: (at) => `${times.format(at)} UTC`,
    day: (date) => days.format(new Date(`${date}T00:00:00Z`)),
    month: (month) => months.format(new Date(`${month}-01T00:00:00Z`)),
    duration(ms) {
      let left = Math.max(0, Math.round(ms / 1000));
      const parts = units.map(([format, seconds]) => {
        const n = Math.floor(left / seconds);
        left -= n * seconds;
        return [format, n] as const;
      });
      const first = parts.findIndex(([, n]) => n > 0);
      if (first === -1) return units[units.length - 1]![0].format(0);
      return parts
        .slice(first, first + 2)
        .filter(([, n]) => n > 0)
        .map(([format, n]) => format.format(n))
        .join(" ");
    },
    uptime: (share) => (share === null ? t("bar.noData") : percent.format(Math.floor(share * 100) / 10_000)),
    componentStatus: (status) => t(`componentStatus.${status}`),
    dayStatus: (status) => t(`dayStatus.${status}`),
    incidentStatus: (status) => t(`incidentStatus.${status}`),
    overall: (indicator, underMaintenance) => t(indicator === "none" && underMaintenance ? "overall.maintenance" : `overall.${indicator}`),
  };
}

/**
 * An incident's title in these words: people's own for a written one; for an
 * automatic one, what happened to which components (the monitor's name when
 * the page names none).
 */
export function incidentTitle(words: Words, incident: Pick<IncidentView, "kind" | "title" | "impact" | "components" | "monitor">): string {
  if (incident.kind === "written") return incident.title;
  const what = incident.components.map((c) => c.name).join(", ") || (incident.monitor?.name ?? "");
  return words.t(incident.impact === "major" ? "automaticTitle.outage" : "automaticTitle.degraded", { what });
}
