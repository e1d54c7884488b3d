import { Feed } from "feed";
import { markdownHtml } from "@vigil/domain";
import { incidentUrl } from "./addresses";
import { htmlText } from "./document";
import type { IncidentView, MaintenanceOccurrenceView, PageView } from "./view";
import { incidentTitle, type Words } from "./words";
import { wellFormedXml } from "./xml";

/**
 * The page's listed incidents (open and of the last 14 days) as an Atom feed:
 * each update people wrote is an entry of its own (its Markdown as HTML), so
 * is a postmortem (its entry changes when it is rewritten), and so is each
 * automatic incident, whose entry changes when it ends. So is each maintenance
 * the page shows (scheduled within 7 days, or in progress), whose entry
 * changes when it starts. Written in `words`' language.
 */
export function atomOf(view: PageView, feedUrl: string, words: Words): string {
  const { page } = view;
  const feed = new Feed({
    id: page.url,
    title: words.t("page.feedTitle", { page: page.title }),
    language: words.lang,
    description: page.description || undefined,
    link: page.url,
    updated: page.updatedAt,
    generator: "Vigil",
    feedLinks: { atom: feedUrl },
    copyright: "",
  });
  const entries = view.incidents.flatMap((incident) => (incident.kind === "written" ? [...updateEntries(incident, page.url, words), ...postmortemEntries(incident, page.url, words)] : [automaticEntry(incident, page.url, words)]));
  entries.push(...view.maintenances.map((maintenance) => maintenanceEntry(maintenance, page.url, words)));
  for (const entry of entries.sort((a, b) => b.date.getTime() - a.date.getTime())) feed.addItem(entry);
  return wellFormedXml(feed.atom1());
}

// The library writes entries' titles and summaries as type="html": text goes in as HTML that shows it.

function updateEntries(incident: IncidentView, pageUrl: string, words: Words) {
  return incident.updates.map((update) => ({
    id: `urn:vigil:incident-update:${update.id}`,
    title: htmlText(`${incident.title}: ${words.incidentStatus(update.status)}`),
    link: incidentUrl(pageUrl, incident.id),
    date: update.createdAt,
    published: update.createdAt,
    // Rendered by markdown-it with raw HTML escaped and only web and mail links (@vigil/domain markdown.ts).
    description: markdownHtml(update.message),
  }));
}

function postmortemEntries(incident: IncidentView, pageUrl: string, words: Words) {
  if (!incident.postmortem || !incident.postmortemAt) return [];
  return [
    {
      id: `urn:vigil:incident-postmortem:${incident.id}`,
      title: htmlText(`${incident.title}: ${words.t("incident.postmortem")}`),
      link: incidentUrl(pageUrl, incident.id),
      date: incident.postmortemAt,
      description: markdownHtml(incident.postmortem),
    },
  ];
}

function automaticEntry(incident: IncidentView, pageUrl: string, words: Words) {
  const ended = incident.resolvedAt;
  const started = words.time(incident.startedAt);
  const summary = ended
    ? words.t("incident.feedResolved", { started, ended: words.time(ended), duration: words.duration(ended.getTime() - incident.startedAt.getTime()) })
    : words.t("incident.feedOngoing", { started });
  const title = incidentTitle(words, incident);
  return {
    id: `urn:vigil:incident:${incident.id}`,
    title: htmlText(ended ? words.t("incident.resolvedMark", { title }) : title),
    link: incidentUrl(pageUrl, incident.id),
    date: ended ?? incident.startedAt,
    published: incident.startedAt,
    description: htmlText(summary),
  };
}

function maintenanceEntry(maintenance: MaintenanceOccurrenceView, pageUrl: string, words: Words) {
  const when = htmlText(words.t("maintenance.when", { from: words.time(maintenance.startsAt), until: words.time(maintenance.endsAt) }));
  return {
    id: `urn:vigil:maintenance:${maintenance.id}`,
    title: htmlText(`${maintenance.title}: ${words.t(`maintenanceStatus.${maintenance.status}`)}`),
    link: pageUrl,
    // Scheduled: when it was last written; in progress: when it started.
    date: maintenance.status === "scheduled" ? maintenance.updatedAt : maintenance.startsAt,
    published: maintenance.createdAt,
    description: `<p>${when}</p>${markdownHtml(maintenance.message)}`,
  };
}
