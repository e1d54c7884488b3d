import type { HTTPVersion, Instance } from "find-my-way";
import { DEFAULT_PAGE_LANGUAGE } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import { HttpError, sendError, type Request, type Response } from "../../http/json";
import { toHttpError } from "../../errors";
import { clientAddress, tooManyRequests, type RequestRates } from "../../limits/request-rates";
import type { Changes } from "../../changes/changes";
import type { PageAccessControl } from "./access";
import type { PageHosts } from "./addresses";
import { atomOf } from "./feed";
import { badgeOf } from "./badge";
import { PAGE_CACHE_MS, PublicPageCache, type Made, type Rendered } from "./cache";
import { PAGE_HEADERS, notFoundPage, renderHistory, renderIncidentPage, renderPage, type Rendering } from "./html";
import { wordsFor } from "./language";
import { securityHeaders } from "./security-headers";
import { findPublishedPage, loadHistoryView, loadIncidentPageView, loadPageView, type PageAddress, type PageSources } from "./load";
import { summaryOf } from "./summary";
import type { HistoryPageView, IncidentPageView, PageView } from "./view";
import { statusPageRequests } from "../../metrics/definitions";
import { acceptsGzip, matchesEtag } from "../../http/conditional";
import { CONSOLE_PATH } from "../../console/files";

export interface PublicPagesOptions extends PageSources {
  pageChanges: Changes;
  /** Views per client address and page are limited (RATE_LIMIT_PAGE_VIEWS). */
  rates: RequestRates;
  access: PageAccessControl;
  hosts: PageHosts;
  logger: Logger;
}

type Representation = "html" | "summary" | "badge" | "feed" | "history" | "incident";

/** What a request asks of a page: a representation, and for an incident's page, the incident. */
interface Wanted {
  representation: Representation;
  incidentId?: string;
}

/** The pages of a status page that are HTML, and so answer a visitor lost with a page rather than JSON. */
const HTML: ReadonlySet<Representation> = new Set(["html", "history", "incident"]);

/** summary.json (Statuspage's shape, English as Statuspage's) and the badge are the same in every language. */
const LANGUAGE_BLIND: ReadonlySet<Representation> = new Set(["summary", "badge"]);

/** The companions' names after a page's address. */
const COMPANIONS: Record<Exclude<Representation, "html" | "history" | "incident">, string> = { summary: "/summary.json", badge: "/badge.svg", feed: "/feed.atom" };

/**
 * The public status pages: /status/<slug> and its companions on the API
 * port, and the same at / on a page's custom domain (the Host header).
 * Their cache lives as long as the server, subscribed to page changes.
 */
export function publicStatusPageRoutes(router: Instance<HTTPVersion.V1>, options: PublicPagesOptions): void {
  const cache = new PublicPageCache(options.pageChanges);

  const serve = (address: (req: Request, params: Record<string, string | undefined>) => PageAddress | null, representation: Representation) =>
    (req: Request, res: Response, params: Record<string, string | undefined>) => {
      statusPageRequests.inc({ representation });
      const wanted: Wanted = { representation, ...(params.id !== undefined && { incidentId: params.id }) };
      answer(req, res, address(req, params), wanted).catch((error: unknown) => {
        const answer = toHttpError(error);
        if (answer.code === "internal") options.logger.error({ err: error, path: req.url }, "status page failed");
        if (!res.headersSent) sendError(res, answer);
      });
    };

  const answer = async (req: Request, res: Response, address: PageAddress | null, wanted: Wanted) => {
    const asPage = address?.kind === "slug" && HTML.has(wanted.representation);
    if (!address) return notFound(req, res, asPage);
    const pageKey = address.kind === "slug" ? `slug:${address.slug}` : `host:${address.host}`;
    const refusal = await options.rates.pageView(clientAddress(req), pageKey);
    if (refusal) return sendError(res, tooManyRequests(refusal));
    // The history and each incident's page are views of their own, cached and forgotten with the page.
    const key = wanted.representation === "history" ? `${pageKey}|history` : wanted.representation === "incident" ? `${pageKey}|incident:${wanted.incidentId}` : pageKey;
    const page = await cache.get(key, () => load(address, wanted));
    if (!page) return notFound(req, res, asPage);
    const words = wordsFor(req, page.view.page.language);
    if (!(await options.access.authorize(req, res, page.view.page, HTML.has(wanted.representation) ? "html" : "data", words))) return;
    if (wanted.representation === "incident" && !(page.view as IncidentPageView).incident) return notFound(req, res, asPage);
    const base = address.kind === "slug" ? `/status/${encodeURIComponent(page.view.page.slug)}` : "";
    // Each language is a representation of its own, and so is one chosen by ?lang= (its links keep the choice).
    const variant = LANGUAGE_BLIND.has(wanted.representation) ? wanted.representation : `${wanted.representation}|${words.lang}|${words.href("")}`;
    const rendered = page.render(variant, (view) => make(view, wanted.representation, { base, words }));
    send(req, res, rendered, page.view.page.accessType === "public", LANGUAGE_BLIND.has(wanted.representation) ? null : words.lang);
  };

  const load = async (address: PageAddress, wanted: Wanted): Promise<PageView | null> => {
    const row = await findPublishedPage(options.prisma, address);
    if (!row) return null;
    if (wanted.representation === "history") return loadHistoryView(options, row);
    if (wanted.representation === "incident") return loadIncidentPageView(options, row, wanted.incidentId ?? "");
    return loadPageView(options, row);
  };

  const make = (view: PageView, representation: Representation, rendering: Rendering): Made => {
    const { base, words } = rendering;
    switch (representation) {
      case "html":
        return { body: renderPage(view, rendering), contentType: "text/html; charset=utf-8" };
      case "history":
        return { body: renderHistory(view as HistoryPageView, rendering), contentType: "text/html; charset=utf-8" };
      case "incident":
        return { body: renderIncidentPage(view as IncidentPageView & { incident: NonNullable<IncidentPageView["incident"]> }, rendering), contentType: "text/html; charset=utf-8" };
      case "summary":
        return { body: JSON.stringify(summaryOf(view)), contentType: "application/json; charset=utf-8" };
      case "badge":
        return { body: badgeOf(view), contentType: "image/svg+xml; charset=utf-8" };
      case "feed":
        return { body: atomOf(view, new URL(`${base}${COMPANIONS.feed}`, view.page.url).href, words), contentType: "application/atom+xml; charset=utf-8" };
    }
  };

  const bySlug = (_req: Request, params: Record<string, string | undefined>): PageAddress | null =>
    params.slug ? { kind: "slug", slug: params.slug } : null;
  const byHost = (req: Request): PageAddress | null => {
    const host = options.hosts.customDomainOf(req);
    return host ? { kind: "host", host } : null;
  };

  router.on("GET", "/status/:slug", serve(bySlug, "html"));
  const servePageAtRoot = serve(byHost, "html");
  router.on("GET", "/", (req, res, params) => {
    // `/` of the service's own address is the console's; a custom domain's is its page.
    if (options.hosts.isOwnAddress(req)) return void res.writeHead(302, { location: CONSOLE_PATH, "cache-control": "no-cache" }).end();
    servePageAtRoot(req, res, params);
  });
  for (const [representation, path] of [...Object.entries(COMPANIONS), ["history", "/history"], ["incident", "/incidents/:id"]] as [Representation, string][]) {
    router.on("GET", `/status/:slug${path}`, serve(bySlug, representation));
    router.on("GET", path, serve(byHost, representation));
  }
}

/** summary.json, the badge and the feed load nothing. */
const DATA_HEADERS = securityHeaders();

/** `language` is the one a representation is written in, null for those the same in every language. */
function send(req: Request, res: Response, rendered: Rendered, isPublic: boolean, language: string | null): void {
  const seconds = PAGE_CACHE_MS / 1000;
  const vary = ["Accept-Encoding", ...(language ? ["Accept-Language"] : []), ...(isPublic ? [] : ["Cookie"])].join(", ");
  const headers = {
    etag: rendered.etag,
    // A protected page is for the signed-in reader only, and is asked again each time: its access may end at any moment.
    "cache-control": isPublic ? `public, max-age=${seconds}, s-maxage=${seconds}` : "private, no-cache",
    vary,
    ...(language && { "content-language": language }),
    ...(rendered.contentType.startsWith("text/html") ? PAGE_HEADERS : DATA_HEADERS),
  };
  if (matchesEtag(req.headers["if-none-match"], rendered.etag)) {
    res.writeHead(304, headers).end();
    return;
  }
  const gzip = acceptsGzip(req.headers["accept-encoding"]);
  const body = gzip ? rendered.gzipped : rendered.body;
  res
    .writeHead(200, { ...headers, "content-type": rendered.contentType, "content-length": body.length, ...(gzip && { "content-encoding": "gzip" }) })
    .end(body);
}

/** Visitors of /status/<slug> get a page (in the language they ask for); programs, and hosts that are no page's domain, the API's JSON error. */
function notFound(req: Request, res: Response, asPage: boolean): void {
  if (!asPage) return sendError(res, new HttpError("not_found", `no endpoint ${req.method} ${req.url}`));
  const words = wordsFor(req, DEFAULT_PAGE_LANGUAGE);
  const page = notFoundPage(words);
  res
    .writeHead(404, { "content-type": "text/html; charset=utf-8", "content-length": Buffer.byteLength(page), "content-language": words.lang, vary: "Accept-Language", ...DATA_HEADERS })
    .end(page);
}
