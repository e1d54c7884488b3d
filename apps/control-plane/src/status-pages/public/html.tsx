import type { ReactNode } from "react";
import { COMPONENT_STATUS_WORDS, DAY_STATUS_WORDS, INCIDENT_STATUS_WORDS, durationWords, monthWords, uptimeWords, utcWords } from "./words";
import {
  groupStatusOf,
  type ComponentView,
  type DayView,
  type HistoryPageView,
  type IncidentPageView,
  type IncidentView,
  type PageView,
  type Section,
} from "./view";
import { PAGE_HISTORY, markdownHtml, type ComponentStatus } from "@vigil/domain";
import { htmlDocument } from "./document";
import { securityHeaders } from "./security-headers";

const count = (n: number) => n.toLocaleString("en-US");

/** Only web addresses become links: anything else written into the database stays text. */
function webUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * A page of a status page: its masthead, `main` and footer, complete without
 * JavaScript: the only script swaps in a fresh <main> every minute while the
 * page is visible and nothing in it has focus. `base` is where the page and
 * its companions are ("/status/<slug>" or "" on a custom domain).
 */
function Frame({ view, base, title, children }: { view: PageView; base: string; title: string; children: ReactNode }) {
  const { page } = view;
  const icon = webUrl(page.icon);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{title}</title>
        {page.description && <meta name="description" content={page.description} />}
        {/* Without an icon of its own the page names an empty one: browsers would ask for /favicon.ico, a 404 on every visit. */}
        <link rel="icon" href={icon ?? "data:,"} />
        <link rel="alternate" type="application/atom+xml" title={`${page.title} incidents`} href={`${base}/feed.atom`} />
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
            Times are in UTC. <a href={`${base}/history`}>Incident history</a> · <a href={`${base}/feed.atom`}>Incident feed (Atom)</a> ·{" "}
            <a href={`${base}/summary.json`}>summary.json</a> · Powered by Vigil
          </p>
        </footer>
        <script dangerouslySetInnerHTML={{ __html: REFRESH }} />
      </body>
    </html>
  );
}

/** The public page: the overall status, the components and the incidents. */
export function renderPage(view: PageView, base: string): string {
  return htmlDocument(
    <Frame view={view} base={base} title={`${view.page.title} status`}>
      <section className={`banner banner-${view.status.indicator}`} aria-labelledby="overall">
        <h2 id="overall">
          <span className="symbol" aria-hidden="true">{view.status.indicator === "none" ? "✓" : "!"}</span> {view.status.description}
        </h2>
      </section>
      <section aria-labelledby="components-title">
        <h2 id="components-title" className="section-title">Components</h2>
        {view.sections.length === 0 ? <p>This page has no components yet.</p> : view.sections.map((section) => <SectionOf key={sectionKey(section)} section={section} />)}
        <Legend />
      </section>
      <section aria-labelledby="incidents-title">
        <h2 id="incidents-title" className="section-title">Incidents</h2>
        <Incidents incidents={view.incidents} base={base} />
        <p className="more">
          <a href={`${base}/history`}>Incident history</a>
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
  return (
    <section aria-labelledby="subscribe-title" className="subscribe">
      <h2 id="subscribe-title" className="section-title">Get updates</h2>
      {view.page.subscriptionsEnabled && (
        <form method="post" action={`${base}/subscribe`}>
          <label htmlFor="subscribe-email">Email address</label>
          <div className="field">
            <input type="email" id="subscribe-email" name="email" autoComplete="email" required />
            <button type="submit">Subscribe</button>
          </div>
          {view.components.length > 0 && (
            <fieldset>
              <legend>Only these components (none chosen: all of them)</legend>
              {view.components.map((component) => (
                <label key={component.id} className="choice">
                  <input type="checkbox" name="components" value={component.id} /> {component.name}
                </label>
              ))}
            </fieldset>
          )}
          <p className="hint">We email you a link to confirm. Every email has a link to unsubscribe.</p>
        </form>
      )}
      <p className="more">
        Or follow the <a href={`${base}/feed.atom`}>incident feed (Atom)</a>.
      </p>
    </section>
  );
}

/** /history: the incidents of the last months, by month, newest first. */
export function renderHistory(view: HistoryPageView, base: string): string {
  return htmlDocument(
    <Frame view={view} base={base} title={`${view.page.title} incident history`}>
      <h2 className="page-title">Incident history</h2>
      {view.history.length === 0 && <p>{`No incidents in the last ${PAGE_HISTORY.historyMonths} months.`}</p>}
      {view.history.map(({ month, entries }) => (
        <section key={month} className="month" aria-labelledby={`month-${month}`}>
          <h3 id={`month-${month}`} className="section-title">
            {monthWords(month)}
          </h3>
          <ol className="incidents">
            {entries.map((entry) => (
              // Maintenances will be another kind of entry here.
              <IncidentSummary key={entry.incident.id} incident={entry.incident} base={base} heading="h4" />
            ))}
          </ol>
        </section>
      ))}
    </Frame>,
  );
}

/** /incidents/<id>: one incident with all its updates and its postmortem. */
export function renderIncidentPage(view: IncidentPageView & { incident: IncidentView }, base: string): string {
  const { incident } = view;
  return htmlDocument(
    <Frame view={view} base={base} title={`${incident.title} · ${view.page.title} status`}>
      <article className="incident-page" aria-labelledby="incident-title">
        <div className="row">
          <h2 id="incident-title" className="page-title">
            {incident.title}
          </h2>
          <IncidentStatusLabel incident={incident} />
        </div>
        <IncidentFacts incident={incident} />
        {incident.components.length > 0 && (
          <section aria-labelledby="affected-title">
            <h3 id="affected-title" className="section-title">Affected components</h3>
            <ul className="affected">
              {incident.components.map((c) => (
                <li key={c.id}>
                  {c.name}: <span className={`status-${c.impact}`}>{COMPONENT_STATUS_WORDS[c.impact].label}</span>
                </li>
              ))}
            </ul>
          </section>
        )}
        {incident.updates.length > 0 && (
          <section aria-labelledby="updates-title">
            <h3 id="updates-title" className="section-title">Updates</h3>
            <Updates incident={incident} />
          </section>
        )}
        {incident.postmortem && (
          <section aria-labelledby="postmortem-title">
            <h3 id="postmortem-title" className="section-title">Postmortem</h3>
            <Markdown text={incident.postmortem} />
          </section>
        )}
      </article>
      <p className="more">
        <a href={base || "/"}>Current status</a> · <a href={`${base}/history`}>Incident history</a>
      </p>
    </Frame>,
  );
}

function Links({ homepageUrl, contactUrl }: { homepageUrl: string; contactUrl: string }) {
  const items = [
    [webUrl(homepageUrl), "Homepage"],
    [webUrl(contactUrl), "Contact"],
  ].filter((item): item is [string, string] => item[0] !== null);
  if (items.length === 0) return null;
  return (
    <nav aria-label="Links">
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
  const words = COMPONENT_STATUS_WORDS[status];
  return (
    <p className={`status status-${status}`}>
      <span className="symbol" aria-hidden="true">{words.symbol}</span> {words.label}
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
  return (
    <>
      <ul className="bar" aria-label={`${component.name}: the last ${PAGE_HISTORY.barDays} days, one entry a day`}>
        {component.days.map((day) => (
          <Day key={day.date} day={day} />
        ))}
      </ul>
      <p className="bar-foot">
        <span>{`${PAGE_HISTORY.barDays} days ago`}</span>
        <span>{`${uptimeWords(component.uptime90d)} uptime`}</span>
        <span>Today</span>
      </p>
    </>
  );
}

function Day({ day }: { day: DayView }) {
  const figures = [
    day.date,
    DAY_STATUS_WORDS[day.status],
    `${count(day.checks)} checks`,
    `${count(day.failed)} failed`,
    `${uptimeWords(day.uptime)} uptime`,
    ...(day.p50Ms !== null ? [`median response ${count(day.p50Ms)} ms`] : []),
  ];
  return (
    <li className={`day day-${day.status}`} tabIndex={0}>
      <span className="tip">{figures.join(" · ")}</span>
    </li>
  );
}

function Legend() {
  return (
    <div className="legend">
      <p>Each bar is a UTC day; hover or focus a day for its figures.</p>
      <ul aria-label="What the colours of a day mean">
        {(["operational", "degraded", "outage", "no_data"] as const).map((status) => (
          <li key={status}>
            <span className={`swatch day-${status}`} aria-hidden="true"></span>
            {DAY_STATUS_WORDS[status]}
          </li>
        ))}
      </ul>
    </div>
  );
}

const Time = ({ at }: { at: Date }) => <time dateTime={at.toISOString()}>{utcWords(at)}</time>;

/**
 * Markdown people wrote, as HTML: markdown-it escapes raw HTML and makes links
 * of web and mail addresses only (@vigil/domain markdown.ts), so its output is
 * the one text besides the page's own style and script set as HTML.
 */
export const Markdown = ({ text }: { text: string }) => <div className="markdown" dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;

function IncidentStatusLabel({ incident }: { incident: IncidentView }) {
  const open = incident.resolvedAt === null;
  // An automatic incident says what the checks say; a written one what people said last.
  const words = incident.kind === "automatic" ? (open ? "Ongoing" : "Resolved") : INCIDENT_STATUS_WORDS[incident.status];
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
  const ended = incident.resolvedAt;
  return (
    <dl>
      <div>
        <dt>Started</dt>
        <dd>
          <Time at={incident.startedAt} />
        </dd>
      </div>
      <div>
        <dt>Ended</dt>
        <dd>{ended === null ? "not yet" : <Time at={ended} />}</dd>
      </div>
      <div>
        <dt>Duration</dt>
        <dd>{ended === null ? "ongoing" : durationWords(ended.getTime() - incident.startedAt.getTime())}</dd>
      </div>
    </dl>
  );
}

/** An incident's updates, newest first. */
function Updates({ incident }: { incident: IncidentView }) {
  return (
    <ol className="updates">
      {incident.updates.map((update) => (
        <li key={update.id} className="update">
          <p className="update-head">
            <strong>{INCIDENT_STATUS_WORDS[update.status]}</strong> · <Time at={update.createdAt} />
          </p>
          <Markdown text={update.message} />
        </li>
      ))}
    </ol>
  );
}

/** An incident in a list: its title (a link to its own page), status and times; with its updates where `withUpdates`. */
function IncidentSummary({ incident, base, heading: Heading, withUpdates = false }: { incident: IncidentView; base: string; heading: "h3" | "h4"; withUpdates?: boolean }) {
  const open = incident.resolvedAt === null;
  return (
    <li className={`incident ${open ? "incident-open" : "incident-resolved"}`}>
      <article aria-labelledby={`incident-${incident.id}`}>
        <div className="row">
          <Heading id={`incident-${incident.id}`}>
            <a href={`${base}/incidents/${encodeURIComponent(incident.id)}`}>{incident.title}</a>
          </Heading>
          <IncidentStatusLabel incident={incident} />
        </div>
        <IncidentFacts incident={incident} />
        {withUpdates && incident.updates.length > 0 && <Updates incident={incident} />}
      </article>
    </li>
  );
}

/** Open incidents with their updates, then those of the last days. */
function Incidents({ incidents, base }: { incidents: readonly IncidentView[]; base: string }) {
  if (incidents.length === 0) return <p>{`No incidents in the last ${PAGE_HISTORY.recentIncidentDays} days.`}</p>;
  return (
    <ol className="incidents">
      {incidents.map((incident) => (
        <IncidentSummary key={incident.id} incident={incident} base={base} heading="h3" withUpdates={incident.resolvedAt === null} />
      ))}
    </ol>
  );
}

/** What /status/<slug> answers for a slug no published page has. */
export const NOT_FOUND_PAGE = htmlDocument(
  <html lang="en">
    <head>
      <meta charSet="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>Page not found</title>
    </head>
    <body>
      <main>
        <h1>Page not found</h1>
        <p>There is no status page here.</p>
      </main>
    </body>
  </html>,
);

const REFRESH = `(function(){setInterval(function(){var m=document.querySelector("main");if(document.hidden||!m||m.contains(document.activeElement)&&document.activeElement!==document.body)return;fetch(location.href,{headers:{accept:"text/html"}}).then(function(r){return r.ok?r.text():null}).then(function(t){if(!t)return;var n=new DOMParser().parseFromString(t,"text/html").querySelector("main");if(n)m.replaceWith(n)}).catch(function(){})},60000)})();`;

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
.status-operational{color:var(--ok)}.status-degraded_performance{color:var(--warn)}.status-partial_outage,.status-major_outage{color:var(--bad)}
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

/** The page's own style and refresh script are all it runs: allowed by hash, nothing from elsewhere. */
export const PAGE_HEADERS = securityHeaders({ styles: [STYLE], scripts: [REFRESH], images: true, fetchSelf: true });
