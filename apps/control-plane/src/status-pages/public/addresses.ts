import { isIP, isIPv4, isIPv6 } from "node:net";
import type { TLSSocket } from "node:tls";
import { hostKey, isDomainName } from "@vigil/domain";
import type { Request } from "../../http/json";

/** What the sign-in flow needs to know of where a page is served. */
export interface PageLocation {
  slug: string;
  /** Lowercase; the page is also served at `/` of this host. */
  customDomain?: string | null;
}

/**
 * A custom domain is reached over HTTPS: TLS ends at the proxy in front of
 * Vigil (Vigil itself serves plain HTTP), as it does in every production
 * deployment, and a sign-in belongs on HTTPS. So the page's absolute
 * addresses there (summary.json, the feed, mailed sign-in links) are https,
 * whichever scheme a request came with.
 */
const customDomainOrigin = (domain: string) => `https://${domain}`;

/** The page's absolute address: the root of its custom domain, else PUBLIC_URL/status/<slug>. */
export const pageUrl = (page: PageLocation, publicUrl: string) =>
  page.customDomain ? `${customDomainOrigin(page.customDomain)}/` : `${publicUrl}/status/${encodeURIComponent(page.slug)}`;

/** The page of one of its incidents, under the page's own address. */
export const incidentUrl = (pageUrl: string, incidentId: string) => `${pageUrl.replace(/\/$/, "")}/incidents/${encodeURIComponent(incidentId)}`;

/** An RFC 3986 host (a name, IPv4, or [IPv6]) and an optional port: nothing else, no user info, path, query or fragment. */
const AUTHORITY = /^(\[[^\]]*\]|[^:[\]]*)(?::\d{1,5})?$/;

/**
 * The host the client asked for (Host, or :authority over HTTP/2) when it is
 * exactly a host and an optional port: `host` in lowercase as sent, and
 * `hostname` without the port or a final dot. Null for anything else: a
 * header such as `status.example\@evil.test` is one host to WHATWG URL
 * parsing and another (evil.test) to RFC 3986 parsers.
 */
function authorityOf(req: Request): { host: string; hostname: string } | null {
  const header = req.headers[":authority"] ?? req.headers.host;
  const host = ((Array.isArray(header) ? header[0] : header) ?? "").toLowerCase();
  const name = AUTHORITY.exec(host)?.[1];
  if (name === undefined) return null;
  const valid = name.startsWith("[") ? isIPv6(name.slice(1, -1)) : isIPv4(name) || isDomainName(name);
  return valid ? { host, hostname: hostKey(name) } : null;
}

/**
 * Where the public pages are, as far as a request can tell: its own
 * addresses come from configuration (PUBLIC_URL, the page's custom domain),
 * never from request headers, which only decide which of them a request was
 * sent to. The deployment's reserved names (reservedDomainsOf) are never a
 * page's custom domain here, even for a page that was given one before it was
 * refused.
 */
export class PageHosts {
  private readonly vigil: URL;

  constructor(
    private readonly publicUrl: string,
    private readonly reservedDomains: ReadonlySet<string>,
  ) {
    this.vigil = new URL(publicUrl);
  }

  /** The custom domain a request was sent to: its host name, or "" when the Host is malformed or reserved. */
  customDomainOf(req: Request): string {
    const hostname = authorityOf(req)?.hostname ?? "";
    return this.reservedDomains.has(hostname) ? "" : hostname;
  }

  /**
   * Whether a request came to the service's own address: a reserved name
   * (PUBLIC_URL's host, RESERVED_DOMAINS) or an IP address, which no page's
   * custom domain is. A malformed Host is neither.
   */
  isOwnAddress(req: Request): boolean {
    const hostname = authorityOf(req)?.hostname;
    return hostname !== undefined && (this.reservedDomains.has(hostname) || isIP(hostname.replace(/^\[(.*)\]$/, "$1")) !== 0);
  }

  private onCustomDomain(req: Request, page: PageLocation): boolean {
    return !!page.customDomain && this.customDomainOf(req) === page.customDomain;
  }

  /** Where the page is on the host the request came to: `/` of its custom domain, else `/status/<slug>`. */
  pagePath(req: Request, page: PageLocation): string {
    return this.onCustomDomain(req, page) ? "/" : `/status/${page.slug}`;
  }

  /**
   * Where a sign-in returns the visitor: `next` when it is one of the page's
   * HTML views on this host (its history, an incident's page), else the page.
   * Nothing else is followed, so a crafted form or link leads nowhere outside.
   */
  returnPath(req: Request, page: PageLocation, next: string | null | undefined): string {
    const path = this.pagePath(req, page);
    const base = path === "/" ? "" : path;
    const view = next?.startsWith(`${base}/`) ? next.slice(base.length) : "";
    return /^\/(history|incidents\/[A-Za-z0-9_-]{1,64})$/.test(view) ? next! : path;
  }

  /** Where its sign-in form posts, on the same host. */
  signInPath(req: Request, page: PageLocation): string {
    return this.onCustomDomain(req, page) ? "/sign-in" : `/status/${page.slug}/sign-in`;
  }

  /** The absolute address a mailed sign-in link's token is appended to: on the custom domain when the visitor is on it, else on PUBLIC_URL. */
  signInLinkBase(req: Request, page: PageLocation): string {
    const origin = this.onCustomDomain(req, page) ? customDomainOrigin(page.customDomain!) : this.publicUrl;
    return `${origin}${this.signInPath(req, page)}/`;
  }

  /**
   * Whether the visitor reached Vigil over HTTPS, which decides the session
   * cookie's Secure attribute. On PUBLIC_URL's host its scheme says so (TLS
   * ends at a proxy in front); on any other host (a custom domain) the proxy's
   * X-Forwarded-Proto, or TLS on this very connection.
   */
  isHttps(req: Request): boolean {
    if (authorityOf(req)?.host === this.vigil.host) return this.vigil.protocol === "https:";
    const forwarded = req.headers["x-forwarded-proto"];
    const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim().toLowerCase();
    return proto === "https" || !!(req.socket as TLSSocket).encrypted;
  }

  /**
   * Whether a form post comes from one of Vigil's own origins: PUBLIC_URL's,
   * the host the request was sent to, or the page's custom domain. Browsers
   * send Origin with every POST; without one the client is not a browser that
   * a cross-site page could drive, so the post is let through.
   */
  isSameOriginPost(req: Request, page: PageLocation): boolean {
    const header = req.headers.origin;
    if (header === undefined) return true;
    let origin: URL;
    try {
      origin = new URL(Array.isArray(header) ? (header[0] ?? "") : header);
    } catch {
      return false; // "null" (a sandboxed or privacy-sensitive context) and anything else unreadable
    }
    return origin.origin === this.vigil.origin || origin.host === authorityOf(req)?.host || (!!page.customDomain && origin.hostname === page.customDomain);
  }
}
