import escapeHtml from "escape-html";
import { Feed } from "feed";
import type { PageView } from "./view";
import { durationWords, incidentTitle, utcWords } from "./words";
import { wellFormedXml } from "./xml";

/** The page's listed incidents (open and of the last 14 days) as an Atom feed; an entry changes when its incident ends. */
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
  for (const incident of view.incidents) {
    const ended = incident.resolvedAt;
    const summary = ended
      ? `Started ${utcWords(incident.startedAt)}, resolved ${utcWords(ended)} after ${durationWords(ended.getTime() - incident.startedAt.getTime())}.`
      : `Started ${utcWords(incident.startedAt)}; ongoing.`;
    feed.addItem({
      id: `urn:vigil:incident:${incident.id}`,
      // The library writes entries' titles and summaries as type="html": text must be HTML-escaped.
      title: escapeHtml(`${incidentTitle(incident)}${ended ? " (resolved)" : ""}`),
      link: page.url,
      date: ended ?? incident.startedAt,
      published: incident.startedAt,
      description: escapeHtml(summary),
    });
  }
  return wellFormedXml(feed.atom1());
}
