import type { TLSSocket } from "node:tls";
import type { Request } from "../../http/json";

/** What the sign-in flow needs to know of where a page is served. */
export interface PageLocation {
  slug: string;
  /** Lowercase; the page is also served at `/` of this host. */
  customDomain?: string | null;
}

/** The host (and port) the client asked for: Host, or :authority over HTTP/2. */
export function requestHost(req: Request): string {
  const host = req.headers[":authority"] ?? req.headers.host;
  return ((Array.isArray(host) ? host[0] : host) ?? "").toLowerCase();
}

const hostnameOf = (host: string) => {
  try {
    return new URL(`http://${host}`).hostname.replace(/\.$/, "");
  } catch {
    return "";
  }
};

/** The request's host name without its port or final dot: how a custom domain is recognised ("" when there is none). */
export const requestHostname = (req: Request) => hostnameOf(requestHost(req));

const onCustomDomain = (req: Request, page: PageLocation) => !!page.customDomain && requestHostname(req) === page.customDomain;

/** Where the page is on the host the request came to: `/` of its custom domain, else `/status/<slug>`. */
export const pagePath = (req: Request, page: PageLocation) => (onCustomDomain(req, page) ? "/" : `/status/${page.slug}`);

/** Where its sign-in form posts, on the same host. */
export const signInPath = (req: Request, page: PageLocation) => (onCustomDomain(req, page) ? "/sign-in" : `/status/${page.slug}/sign-in`);

/**
 * Whether the visitor reached Vigil over HTTPS, which decides the session
 * cookie's Secure attribute. On PUBLIC_URL's host its scheme says so (TLS
 * ends at a proxy in front); on any other host (a custom domain) the proxy's
 * X-Forwarded-Proto, or TLS on this very connection.
 */
export function isHttps(req: Request, publicUrl: string): boolean {
  const vigil = new URL(publicUrl);
  if (requestHost(req) === vigil.host) return vigil.protocol === "https:";
  const forwarded = req.headers["x-forwarded-proto"];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim().toLowerCase();
  return proto === "https" || !!(req.socket as TLSSocket).encrypted;
}

/** The origin links in emails use: the custom domain when the visitor is on it, else PUBLIC_URL. */
export function linkOrigin(req: Request, page: PageLocation, publicUrl: string): string {
  if (!onCustomDomain(req, page)) return publicUrl;
  return `${isHttps(req, publicUrl) ? "https" : "http"}://${requestHost(req)}`;
}

/**
 * Whether a form post comes from one of Vigil's own origins: PUBLIC_URL's,
 * the host the request was sent to, or the page's custom domain. Browsers
 * send Origin with every POST; without one the client is not a browser that
 * a cross-site page could drive, so the post is let through.
 */
export function isSameOriginPost(req: Request, page: PageLocation, publicUrl: string): boolean {
  const header = req.headers.origin;
  if (header === undefined) return true;
  let origin: URL;
  try {
    origin = new URL(Array.isArray(header) ? (header[0] ?? "") : header);
  } catch {
    return false; // "null" (a sandboxed or privacy-sensitive context) and anything else unreadable
  }
  return origin.origin === new URL(publicUrl).origin || origin.host === requestHost(req) || (!!page.customDomain && origin.hostname === page.customDomain);
}
