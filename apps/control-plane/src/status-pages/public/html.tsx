import { createContext, useContext, type ReactNode } from "react";
import { PAGE_LANGUAGES, PAGE_LANGUAGE_NAMES } from "@vigil/domain";
import { COMPONENT_STATUS_SYMBOLS, incidentTitle, type Words } from "./words";
import {
  groupStatusOf,
  type ComponentView,
  type DayView,
  type HistoryPageView,
  type IncidentPageView,
  type IncidentView,
  type MaintenanceOccurrenceView,
  type PageView,
  type Section,
} from "./view";
import { PAGE_HISTORY, markdownHtml, type ComponentStatus } from "@vigil/domain";
import { htmlDocument } from "./document";
import { securityHeaders } from "./security-headers";

/** Only web addresses become links: anything else written into the database stays text. */
function webUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** The words of the language a page is rendered in, for every part of it. */
const WordsContext = createContext<Words | null>(null);
const useWords = (): Words => {
  const words = useContext(WordsContext);
  if (!words) throw new Error("a page part was rendered without its words");
  return words;
};

/** How a page is rendered: `base` is where the page and its companions are ("/status/<slug>" or "" on a custom domain). */
export interface Rendering {
  base: string;
  words: Words;
}

/**
 * A page of a status page: its masthead, `main` and footer, complete without
 * JavaScript. The only script shows times in the visitor's zone and language
 * (they are written in UTC), and swaps in a fresh <main> every minute while
 * the page is visible and nothing in it has focus. `here` is the view's own
 * path, which the language links lead to.
 */
function Frame({ view, base, here, title, children }: { view: PageView; base: string; here: string; title: string; children: ReactNode }) {
  const { page } = view;
  const w = useWords();
  const icon = webUrl(page.icon);
  return (
    <html lang={w.lang}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{title}</title>
        {page.description && <meta name="description" content={page.description} />}
        {/* Without an icon of its own the page names an empty one: browsers would ask for /favicon.ico, a 404 on every visit. */}
        <link rel="icon" href={icon ?? "data:,"} />
        <link rel="alternate" type="application/atom+xml" title={w.t("page.feedTitle", { page: page.title })} href={w.href(`${base}/feed.atom`)} />
        {PAGE_LANGUAGES.map((lang) => (
          <link key={lang} rel="alternate" hrefLang={lang} href={`${here}?lang=${lang}`} />
        ))}
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>
        <header className="masthead">
          <div className="wrap">
            <div className="brand">
              {icon && <img src={icon} alt="" width="48" height="48" />}
              <div>
                <h1>{page.title}</h1>
                {page.description && <p className="lede">{page.description}</p>}
              </div>
            </div>
            <Links homepageUrl={page.homepageUrl} contactUrl={page.contactUrl} />
          </div>
        </header>
        <main className="wrap">{children}</main>
        <footer className="wrap">
          <p>
            <span id="times-note" data-local={w.t("page.timesLocal", { zone: "{zone}" })}>
              {w.t("page.timesUtc")}
            </span>{" "}
            <a href={w.href(`${base}/history`)}>{w.t("page.history")}</a> · <a href={w.href(`${base}/feed.atom`)}>{w.t("page.feed")}</a> ·{" "}
            <a href={`${base}/summary.json`}>summary.json</a> · {w.t("page.poweredBy")}
          </p>
          <nav aria-label={w.t("page.languages")}>
            <ul className="languages">
              {PAGE_LANGUAGES.map((lang) => (
                <li key={lang}>
                  <a href={`${here}?lang=${lang}`} lang={lang} hrefLang={lang} aria-current={lang === w.lang ? "true" : undefined}>
                    {PAGE_LANGUAGE_NAMES[lang]}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        </footer>
        <script dangerouslySetInnerHTML={{ __html: SCRIPT }} />
      </body>
    </html>
  );
}

/** A whole page in the rendering's words. */
const pageDocument = ({ words }: Rendering, page: ReactNode) => htmlDocument(<WordsContext.Provider value={words}>{page}</WordsContext.Provider>);

/** The public page: the overall status, the components and the incidents. */
export function renderPage(view: PageView, rendering: Rendering): string {
  const { base, words: w } = rendering;
  return pageDocument(
    rendering,
    <Frame view={view} base={base} here={base || "/"} title={w.t("page.title", { page: view.page.title })}>
      <section className={`banner banner-${view.status.indicator}`} aria-labelledby="overall">
        <h2 id="overall">
          <span className="symbol" aria-hidden="true">{view.status.indicator === "none" ? "✓" : "!"}</span> {w.overall(view.status.indicator, view.components.some((c) => c.status === "under_maintenance"))}
        </h2>
      </section>
      <section aria-labelledby="components-title">
        <h2 id="components-title" className="section-title">{w.t("page.components")}</h2>
        {view.sections.length === 0 ? <p>{w.t("page.noComponents")}</p> : view.sections.map((section) => <SectionOf key={sectionKey(section)} section={section} />)}
        <Legend />
      </section>
      {view.maintenances.length > 0 && (
        <section aria-labelledby="maintenance-title">
          <h2 id="maintenance-title" className="section-title">{w.t("maintenance.title")}</h2>
          <ol className="incidents">
            {view.maintenances.map((maintenance) => (
              <MaintenanceSummary key={maintenance.id} maintenance={maintenance} heading="h3" />
            ))}
          </ol>
        </section>
      )}
      <section aria-labelledby="incidents-title">
        <h2 id="incidents-title" className="section-title">{w.t("page.incidents")}</h2>
        <Incidents incidents={view.incidents} base={base} />
        <p className="more">
          <a href={w.href(`${base}/history`)}>{w.t("page.history")}</a>
        </p>
      </section>
      <Subscribe view={view} base={base} />
    </Frame>,
  );
}

/**
 * How to be told: the subscribe form (an address, and the components to be
 * told of; none chosen: all of the page) while the page takes subscriptions,
 * and the Atom feed always. It posts to `…/subscribe` (subscribe.ts).
 */
function Subscribe({ view, base }: { view: PageView; base: string }) {
  const w = useWords();
  return (
    <section aria-labelledby="subscribe-title" className="subscribe">
      <h2 id="subscribe-title" className="section-title">{w.t("subscribe.title")}</h2>
      {view.page.subscriptionsEnabled && (
        <form method="post" action={w.href(`${base}/subscribe`)}>
          <label htmlFor="subscribe-email">{w.t("subscribe.email")}</label>
          <div className="field">
            <input type="email" id="subscribe-email" name="email" autoComplete="email" required />
            <button type="submit">{w.t("subscribe.submit")}</button>
          </div>
          {view.components.length > 0 && (
            <fieldset>
              <legend>{w.t("subscribe.only")}</legend>
              {view.components.map((component) => (
                <label key={component.id} className="choice">
                  <input type="checkbox" name="components" value={component.id} /> {component.name}
                </label>
              ))}
            </fieldset>
          )}
          <p className="hint">{w.t("subscribe.hint")}</p>
        </form>
      )}
      <p className="more">
        {w.t("subscribe.followFeed")} <a href={w.href(`${base}/feed.atom`)}>{w.t("page.feed")}</a>
      </p>
    </section>
  );
}

/** /history: the incidents and maintenances of the last months, by month, newest first. */
export function renderHistory(view: HistoryPageView, rendering: Rendering): string {
  const { base, words: w } = rendering;
  return pageDocument(
    rendering,
    <Frame view={view} base={base} here={`${base}/history`} title={w.t("page.historyTitle", { page: view.page.title })}>
      <h2 className="page-title">{w.t("page.history")}</h2>
      {view.history.length === 0 && <p>{w.t("page.noHistory", { count: PAGE_HISTORY.historyMonths })}</p>}
      {view.history.map(({ month, entries }) => (
        <section key={month} className="month" aria-labelledby={`month-${month}`}>
          <h3 id={`month-${month}`} className="section-title">
            {w.month(month)}
          </h3>
          <ol className="incidents">
            {entries.map((entry) =>
              entry.kind === "incident" ? (
                <IncidentSummary key={entry.incident.id} incident={entry.incident} base={base} heading="h4" />
              ) : (
                <MaintenanceSummary key={entry.maintenance.id} maintenance={entry.maintenance} heading="h4" />
              ),
            )}
          </ol>
        </section>
      ))}
    </Frame>,
  );
}

/** /incidents/<id>: one incident with all its updates and its postmortem. */
export function renderIncidentPage(view: IncidentPageView & { incident: IncidentView }, rendering: Rendering): string {
  const { base, words: w } = rendering;
  const { incident } = view;
  const title = incidentTitle(w, incident);
  return pageDocument(
    rendering,
    <Frame view={view} base={base} here={`${base}/incidents/${encodeURIComponent(incident.id)}`} title={w.t("page.incidentTitle", { incident: title, page: view.page.title })}>
      <article className="incident-page" aria-labelledby="incident-title">
        <div className="row">
          <h2 id="incident-title" className="page-title">
            {title}
          </h2>
          <IncidentStatusLabel incident={incident} />
        </div>
        <IncidentFacts incident={incident} />
        {incident.components.length > 0 && (
          <section aria-labelledby="affected-title">
            <h3 id="affected-title" className="section-title">{w.t("incident.affected")}</h3>
            <ul className="affected">
              {incident.components.map((c) => (
                <li key={c.id}>
                  {c.name}: <span className={`status-${c.impact}`}>{w.componentStatus(c.impact)}</span>
                </li>
              ))}
            </ul>
          </section>
        )}
        {incident.updates.length > 0 && (
          <section aria-labelledby="updates-title">
            <h3 id="updates-title" className="section-title">{w.t("incident.updates")}</h3>
            <Updates incident={incident} />
          </section>
        )}
        {incident.postmortem && (
          <section aria-labelledby="postmortem-title">
            <h3 id="postmortem-title" className="section-title">{w.t("incident.postmortem")}</h3>
            <Markdown text={incident.postmortem} />
          </section>
        )}
      </article>
      <p className="more">
        <a href={w.href(base || "/")}>{w.t("page.currentStatus")}</a> · <a href={w.href(`${base}/history`)}>{w.t("page.history")}</a>
      </p>
    </Frame>,
  );
}

function Links({ homepageUrl, contactUrl }: { homepageUrl: string; contactUrl: string }) {
  const w = useWords();
  const items = [
    [webUrl(homepageUrl), w.t("page.homepage")],
    [webUrl(contactUrl), w.t("page.contact")],
  ].filter((item): item is [string, string] => item[0] !== null);
  if (items.length === 0) return null;
  return (
    <nav aria-label={w.t("page.links")}>
      <ul className="links">
        {items.map(([href, text]) => (
          <li key={text}>
            <a href={href}>{text}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function StatusLabel({ status }: { status: ComponentStatus }) {
  const w = useWords();
  return (
    <p className={`status status-${status}`}>
      <span className="symbol" aria-hidden="true">{COMPONENT_STATUS_SYMBOLS[status]}</span> {w.componentStatus(status)}
    </p>
  );
}

const sectionKey = (section: Section) => (section.kind === "component" ? section.component.id : section.group.id);

function SectionOf({ section }: { section: Section }) {
  if (section.kind === "component") {
    return (
      <ul className="components">
        <Component component={section.component} heading="h3" />
      </ul>
    );
  }
  const { group } = section;
  return (
    <section className="group" aria-labelledby={`group-${group.id}`}>
      <div className="row">
        <h3 id={`group-${group.id}`}>{group.name}</h3>
        <StatusLabel status={groupStatusOf(group)} />
      </div>
      <ul className="components">
        {group.components.map((c) => (
          <Component key={c.id} component={c} heading="h4" />
        ))}
      </ul>
    </section>
  );
}

function Component({ component, heading: Heading }: { component: ComponentView; heading: "h3" | "h4" }) {
  return (
    <li className="component">
      <div className="row">
        <Heading className="name">{component.name}</Heading>
        <StatusLabel status={component.status} />
      </div>
      {component.description && <p className="description">{component.description}</p>}
      {component.type === "monitor" && <Bar component={component} />}
    </li>
  );
}

function Bar({ component }: { component: ComponentView }) {
  const w = useWords();
  return (
    <>
      <ul className="bar" aria-label={w.t("bar.label", { name: component.name, count: PAGE_HISTORY.barDays })}>
        {component.days.map((day) => (
          <Day key={day.date} day={day} />
        ))}
      </ul>
      <p className="bar-foot">
        <span>{w.t("bar.daysAgo", { count: PAGE_HISTORY.barDays })}</span>
        <span>{w.t("bar.uptime", { uptime: w.uptime(component.uptime90d) })}</span>
        <span>{w.t("bar.today")}</span>
      </p>
    </>
  );
}

function Day({ day }: { day: DayView }) {
  const w = useWords();
  const figures = [
    w.day(day.date),
    w.dayStatus(day.status),
    w.t("bar.checks", { count: day.checks }),
    w.t("bar.failed", { count: day.failed }),
    w.t("bar.uptime", { uptime: w.uptime(day.uptime) }),
    ...(day.p50Ms !== null ? [w.t("bar.median", { ms: w.count(day.p50Ms) })] : []),
  ];
  return (
    <li className={`day day-${day.status}`} tabIndex={0}>
      <span className="tip">{figures.join(" · ")}</span>
    </li>
  );
}

function Legend() {
  const w = useWords();
  return (
    <div className="legend">
      <p>{w.t("bar.legend")}</p>
      <ul aria-label={w.t("bar.legendLabel")}>
        {(["operational", "degraded", "outage", "no_data"] as const).map((status) => (
          <li key={status}>
            <span className={`swatch day-${status}`} aria-hidden="true"></span>
            {w.dayStatus(status)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A time in UTC, which the page's script writes in the visitor's zone. */
function Time({ at }: { at: Date }) {
  const w = useWords();
  return (
    <time dateTime={at.toISOString()} data-local="">
      {w.time(at)}
    </time>
  );
}

/**
 * Markdown people wrote, as HTML: markdown-it escapes raw HTML and makes links
 * of web and mail addresses only (@vigil/domain markdown.ts), so its output is
 * the one text besides the page's own style and script set as HTML.
 */
export const Markdown = ({ text }: { text: string }) => <div className="markdown" dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;

function IncidentStatusLabel({ incident }: { incident: IncidentView }) {
  const w = useWords();
  const open = incident.resolvedAt === null;
  // An automatic incident says what the checks say; a written one what people said last.
  const words = incident.kind === "automatic" && open ? w.t("incident.ongoingStatus") : w.incidentStatus(incident.status);
  return (
    <p className={`status ${open ? "status-major_outage" : "status-operational"}`}>
      <span className="symbol" aria-hidden="true">{open ? "!" : "✓"}</span> {words}
    </p>
  );
}

/**
 * An open incident shows when it started, not a duration that grows: the
 * page then changes only when what it reports changes, so its ETag holds.
 */
function IncidentFacts({ incident }: { incident: IncidentView }) {
  const w = useWords();
  const ended = incident.resolvedAt;
  return (
    <dl>
      <div>
        <dt>{w.t("incident.started")}</dt>
        <dd>
          <Time at={incident.startedAt} />
        </dd>
      </div>
      <div>
        <dt>{w.t("incident.ended")}</dt>
        <dd>{ended === null ? w.t("incident.notYet") : <Time at={ended} />}</dd>
      </div>
      <div>
        <dt>{w.t("incident.duration")}</dt>
        <dd>{ended === null ? w.t("incident.ongoing") : w.duration(ended.getTime() - incident.startedAt.getTime())}</dd>
      </div>
    </dl>
  );
}

/** An incident's updates, newest first. */
function Updates({ incident }: { incident: IncidentView }) {
  const w = useWords();
  return (
    <ol className="updates">
      {incident.updates.map((update) => (
        <li key={update.id} className="update">
          <p className="update-head">
            <strong>{w.incidentStatus(update.status)}</strong> · <Time at={update.createdAt} />
          </p>
          <Markdown text={update.message} />
        </li>
      ))}
    </ol>
  );
}

/** An incident in a list: its title (a link to its own page), status and times; with its updates where `withUpdates`. */
function IncidentSummary({ incident, base, heading: Heading, withUpdates = false }: { incident: IncidentView; base: string; heading: "h3" | "h4"; withUpdates?: boolean }) {
  const w = useWords();
  const open = incident.resolvedAt === null;
  return (
    <li className={`incident ${open ? "incident-open" : "incident-resolved"}`}>
      <article aria-labelledby={`incident-${incident.id}`}>
        <div className="row">
          <Heading id={`incident-${incident.id}`}>
            <a href={w.href(`${base}/incidents/${encodeURIComponent(incident.id)}`)}>{incidentTitle(w, incident)}</a>
          </Heading>
          <IncidentStatusLabel incident={incident} />
        </div>
        <IncidentFacts incident={incident} />
        {withUpdates && incident.updates.length > 0 && <Updates incident={incident} />}
      </article>
    </li>
  );
}

/**
 * A maintenance in a list: title, what it is at, when, the components it
 * names and its message. Its times are fixed, so the page's ETag holds while
 * it goes on.
 */
function MaintenanceSummary({ maintenance, heading: Heading }: { maintenance: MaintenanceOccurrenceView; heading: "h3" | "h4" }) {
  const w = useWords();
  const id = `maintenance-${maintenance.id}`;
  return (
    <li className={`incident maintenance maintenance-${maintenance.status}`}>
      <article aria-labelledby={id}>
        <div className="row">
          <Heading id={id}>{maintenance.title}</Heading>
          <p className="status status-under_maintenance">
            <span className="symbol" aria-hidden="true">
              {COMPONENT_STATUS_SYMBOLS.under_maintenance}
            </span>{" "}
            {w.t(`maintenanceStatus.${maintenance.status}`)}
          </p>
        </div>
        <dl>
          <div>
            <dt>{w.t("maintenance.from")}</dt>
            <dd>
              <Time at={maintenance.startsAt} />
            </dd>
          </div>
          <div>
            <dt>{w.t("maintenance.until")}</dt>
            <dd>
              <Time at={maintenance.endsAt} />
            </dd>
          </div>
          <div>
            <dt>{w.t("page.components")}</dt>
            <dd>{maintenance.components.map((c) => c.name).join(", ")}</dd>
          </div>
        </dl>
        {maintenance.message !== "" && <Markdown text={maintenance.message} />}
      </article>
    </li>
  );
}

/** Open incidents with their updates, then those of the last days. */
function Incidents({ incidents, base }: { incidents: readonly IncidentView[]; base: string }) {
  const w = useWords();
  if (incidents.length === 0) return <p>{w.t("page.noRecentIncidents", { count: PAGE_HISTORY.recentIncidentDays })}</p>;
  return (
    <ol className="incidents">
      {incidents.map((incident) => (
        <IncidentSummary key={incident.id} incident={incident} base={base} heading="h3" withUpdates={incident.resolvedAt === null} />
      ))}
    </ol>
  );
}

/** What /status/<slug> answers for a slug no published page has. */
export const notFoundPage = (w: Words) =>
  htmlDocument(
    <html lang={w.lang}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{w.t("notFound.title")}</title>
      </head>
      <body>
        <main>
          <h1>{w.t("notFound.title")}</h1>
          <p>{w.t("notFound.text")}</p>
        </main>
      </body>
    </html>,
  );

/**
 * The page's one script. It writes every <time data-local> in the visitor's
 * zone, in the page's language, and says so in the footer (without the
 * script, times stay in UTC, as the footer then says). Every minute, while the
 * page is visible and nothing in <main> has focus, it swaps in a fresh <main>.
 */
const SCRIPT = `(function(){var lang=document.documentElement.lang;function local(root){var f;try{f=new Intl.DateTimeFormat(lang,{dateStyle:"medium",timeStyle:"short"})}catch(e){return}root.querySelectorAll("time[data-local]").forEach(function(t){t.textContent=f.format(new Date(t.getAttribute("datetime")))})}local(document);var note=document.getElementById("times-note");if(note&&note.dataset.local)note.textContent=note.dataset.local.replace("{zone}",Intl.DateTimeFormat().resolvedOptions().timeZone);setInterval(function(){var m=document.querySelector("main");if(document.hidden||!m||m.contains(document.activeElement)&&document.activeElement!==document.body)return;fetch(location.href,{headers:{accept:"text/html"}}).then(function(r){return r.ok?r.text():null}).then(function(t){if(!t)return;var n=new DOMParser().parseFromString(t,"text/html").querySelector("main");if(n){local(n);m.replaceWith(n)}}).catch(function(){})},60000)})();`;

const STYLE = `
:root{color-scheme:light dark;--bg:#f6f8fa;--surface:#fff;--text:#1f2328;--muted:#59636e;--border:#d1d9e0;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--nodata:#c8d1da;--link:#0969da;--focus:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--surface:#151b23;--text:#f0f6fc;--muted:#9198a1;--border:#3d444d;--ok:#3fb950;--warn:#d29922;--bad:#f85149;--nodata:#3d444d;--link:#4493f8;--focus:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
.wrap{max-width:52rem;margin:0 auto;padding:0 1rem}
a{color:var(--link)}
a:focus-visible,.day:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
h1,h2,h3,h4,p{margin:0}
.masthead{border-bottom:1px solid var(--border);background:var(--surface);padding:1.5rem 0;margin-bottom:1.5rem}
.masthead .wrap{display:flex;flex-wrap:wrap;gap:1rem;justify-content:space-between;align-items:center}
.brand{display:flex;gap:1rem;align-items:center;min-width:0}
.brand img{border-radius:8px;flex:none}
h1{font-size:1.6rem;line-height:1.2}
.lede{color:var(--muted);margin-top:.25rem}
.links{display:flex;gap:1rem;list-style:none;margin:0;padding:0}
.banner{border:1px solid var(--border);border-left:6px solid var(--ok);background:var(--surface);border-radius:8px;padding:1rem 1.25rem;margin-bottom:2rem}
.banner h2{font-size:1.25rem}
.banner-minor{border-left-color:var(--warn)}.banner-major,.banner-critical{border-left-color:var(--bad)}
.banner .symbol{color:var(--ok)}.banner-minor .symbol{color:var(--warn)}.banner-major .symbol,.banner-critical .symbol{color:var(--bad)}
.section-title{font-size:1.1rem;margin:0 0 .75rem}
section+section{margin-top:2rem}
.components{list-style:none;margin:0;padding:0}
.component,.group{background:var(--surface);border:1px solid var(--border);border-radius:8px;padding:1rem;margin-bottom:.75rem}
.group .component{border:0;border-top:1px solid var(--border);border-radius:0;margin:0;padding:1rem 0 0;margin-top:1rem}
.row{display:flex;flex-wrap:wrap;gap:.25rem 1rem;justify-content:space-between;align-items:baseline}
.name,.group h3{font-size:1rem}
.description{color:var(--muted);font-size:.9rem;margin-top:.25rem}
.status{font-size:.9rem;font-weight:600}
.status-operational{color:var(--ok)}.status-under_maintenance{color:var(--link)}.status-degraded_performance{color:var(--warn)}.status-partial_outage,.status-major_outage{color:var(--bad)}
.bar{position:relative;display:flex;gap:1px;list-style:none;margin:.75rem 0 0;padding:0;height:2.25rem;align-items:flex-end}
.day{flex:1 1 0;min-width:0;height:100%;border-radius:1px;cursor:default}
.day-operational{background:var(--ok)}
.day-degraded{background:repeating-linear-gradient(135deg,var(--warn) 0 3px,transparent 3px 5px),var(--warn);background-color:var(--warn)}
.day-outage{background:var(--bad)}
.day-no_data{background:var(--nodata);height:50%}
.tip{position:absolute;z-index:1;left:0;right:0;top:calc(100% + .4rem);background:var(--surface);color:var(--text);border:1px solid var(--border);border-radius:6px;padding:.4rem .6rem;font-size:.85rem;box-shadow:0 2px 8px rgba(0,0,0,.2)}
.day:not(:hover):not(:focus) .tip{clip-path:inset(50%);height:1px;overflow:hidden;white-space:nowrap;padding:0;border:0}
.bar-foot{display:flex;justify-content:space-between;gap:.5rem;color:var(--muted);font-size:.8rem;margin-top:.35rem}
.legend{color:var(--muted);font-size:.85rem;margin-top:1rem}
.legend ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:.25rem 0 0;padding:0}
.swatch{display:inline-block;width:.75rem;height:.75rem;margin-right:.35rem;vertical-align:-1px;border-radius:2px}
.swatch.day-no_data{height:.75rem}
.incidents{list-style:none;margin:0;padding:0}
.incident{background:var(--surface);border:1px solid var(--border);border-radius:8px;padding:1rem;margin-bottom:.75rem}
.incident h3{font-size:1rem}
.incident dl,.incident-page dl{display:flex;flex-wrap:wrap;gap:.25rem 1.5rem;margin:.5rem 0 0;font-size:.9rem}
.incident dt,.incident-page dt{color:var(--muted)}.incident dd,.incident-page dd{margin:0}
footer{color:var(--muted);font-size:.85rem;margin:2rem auto;}
.page-title{font-size:1.25rem;margin:0 0 1rem}
.more{margin-top:.75rem;font-size:.9rem}
.updates{list-style:none;margin:.75rem 0 0;padding:0;border-left:3px solid var(--border)}
.update{padding:0 0 .75rem .75rem}
.update-head{font-size:.9rem;color:var(--muted)}.update-head strong{color:var(--text)}
.markdown{margin-top:.25rem}.markdown p,.markdown ul,.markdown ol,.markdown pre,.markdown blockquote{margin:.25rem 0}
.markdown pre,.markdown code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
.markdown pre{overflow-x:auto;background:var(--bg);padding:.5rem;border-radius:6px}
.markdown blockquote{border-left:3px solid var(--border);padding-left:.75rem;color:var(--muted)}
.affected{margin:.25rem 0 1rem}
.incident-page section{margin-top:1.5rem}
.month+.month{margin-top:1.5rem}
.languages{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:.5rem 0 0;padding:0}
.languages [aria-current]{font-weight:600;color:var(--text)}
.subscribe form{background:var(--surface);border:1px solid var(--border);border-radius:8px;padding:1rem}
.subscribe .field{display:flex;flex-wrap:wrap;gap:.5rem;margin:.25rem 0 .75rem}
.subscribe input[type=email]{flex:1 1 14rem;min-width:0;font:inherit;padding:.4rem .5rem;color:var(--text);background:var(--bg);border:1px solid var(--border);border-radius:6px}
.subscribe button{font:inherit;padding:.4rem 1rem;border:1px solid var(--link);border-radius:6px;background:var(--link);color:#fff;cursor:pointer}
.subscribe input:focus-visible,.subscribe button:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.subscribe fieldset{border:0;margin:0 0 .5rem;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.subscribe legend{padding:0;margin-bottom:.25rem;font-size:.9rem;color:var(--muted)}
.subscribe .choice{font-size:.9rem}
.hint{color:var(--muted);font-size:.85rem}
`;

/** The page's own style and script are all it runs: allowed by hash, nothing from elsewhere. */
export const PAGE_HEADERS = securityHeaders({ styles: [STYLE], scripts: [SCRIPT], images: true, fetchSelf: true });
