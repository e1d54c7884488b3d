import { Feed } from "feed";
import { htmlText } from "./document";
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
      // The library writes entries' titles and summaries as type="html": text goes in as HTML that shows it.
      title: htmlText(`${incidentTitle(incident)}${ended ? " (resolved)" : ""}`),
      link: page.url,
      date: ended ?? incident.startedAt,
      published: incident.startedAt,
      description: htmlText(summary),
    });
  }
  return wellFormedXml(feed.atom1());
}
