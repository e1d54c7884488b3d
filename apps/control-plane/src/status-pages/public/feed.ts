import { Feed } from "feed";
import { markdownHtml } from "@vigil/domain";
import { incidentUrl } from "./addresses";
import { htmlText } from "./document";
import type { IncidentView, PageView } from "./view";
import { INCIDENT_STATUS_WORDS, durationWords, utcWords } from "./words";
import { wellFormedXml } from "./xml";

/**
 * The page's listed incidents (open and of the last 14 days) as an Atom feed:
 * each update people wrote is an entry of its own (its Markdown as HTML), so
 * is a postmortem (its entry changes when it is rewritten), and so is each
 * automatic incident, whose entry changes when it ends.
 */
export function atomOf(view: PageView, feedUrl: string): string {
  const { page } = view;
  const feed = new Feed({
    id: page.url,
    title: `${page.title} incidents`,
    description: page.description || undefined,
    link: page.url,
    updated: page.updatedAt,
    generator: "Vigil",
    feedLinks: { atom: feedUrl },
    copyright: "",
  });
  const entries = view.incidents.flatMap((incident) => (incident.kind === "written" ? [...updateEntries(incident, page.url), ...postmortemEntries(incident, page.url)] : [automaticEntry(incident, page.url)]));
  for (const entry of entries.sort((a, b) => b.date.getTime() - a.date.getTime())) feed.addItem(entry);
  return wellFormedXml(feed.atom1());
}

// The library writes entries' titles and summaries as type="html": text goes in as HTML that shows it.

function updateEntries(incident: IncidentView, pageUrl: string) {
  return incident.updates.map((update) => ({
    id: `urn:vigil:incident-update:${update.id}`,
    title: htmlText(`${incident.title}: ${INCIDENT_STATUS_WORDS[update.status]}`),
    link: incidentUrl(pageUrl, incident.id),
    date: update.createdAt,
    published: update.createdAt,
    // Rendered by markdown-it with raw HTML escaped and only web and mail links (@vigil/domain markdown.ts).
    description: markdownHtml(update.message),
  }));
}

function postmortemEntries(incident: IncidentView, pageUrl: string) {
  if (!incident.postmortem || !incident.postmortemAt) return [];
  return [
    {
      id: `urn:vigil:incident-postmortem:${incident.id}`,
      title: htmlText(`${incident.title}: Postmortem`),
      link: incidentUrl(pageUrl, incident.id),
      date: incident.postmortemAt,
      description: markdownHtml(incident.postmortem),
    },
  ];
}

function automaticEntry(incident: IncidentView, pageUrl: string) {
  const ended = incident.resolvedAt;
  const summary = ended
    ? `Started ${utcWords(incident.startedAt)}, resolved ${utcWords(ended)} after ${durationWords(ended.getTime() - incident.startedAt.getTime())}.`
    : `Started ${utcWords(incident.startedAt)}; ongoing.`;
  return {
    id: `urn:vigil:incident:${incident.id}`,
    title: htmlText(`${incident.title}${ended ? " (resolved)" : ""}`),
    link: incidentUrl(pageUrl, incident.id),
    date: ended ?? incident.startedAt,
    published: incident.startedAt,
    description: htmlText(summary),
  };
}
