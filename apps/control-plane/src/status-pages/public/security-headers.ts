import { createHash } from "node:crypto";

/** A CSP source that allows exactly this inline text (a <style> or <script> body). */
const hashOf = (inline: string) => `'sha256-${createHash("sha256").update(inline, "utf8").digest("base64")}'`;

/** What a public answer may load besides itself; everything else is refused. */
export interface PagePolicy {
  /** Bodies of the page's own inline <style> and <script> elements. */
  styles?: readonly string[];
  scripts?: readonly string[];
  /** The page's icon is a URL its owner gave: any http(s) image. */
  images?: boolean;
  /** The periodic refresh fetches the page itself. */
  fetchSelf?: boolean;
}

/**
 * Headers on every answer of the public pages and their sign-in: a Content
 * Security Policy that allows the page's own inline styles and scripts by
 * hash and nothing from elsewhere, no framing (clickjacking of the sign-in
 * forms), no Referer to other sites (sign-in links carry their token in the
 * path; "no-referrer" would also make browsers send `Origin: null` with the
 * sign-in form, which the cross-site check refuses), and no content-type sniffing.
 */
export function securityHeaders(policy: PagePolicy = {}): Record<string, string> {
  const sources = (inline: readonly string[] | undefined) => (inline?.length ? inline.map(hashOf).join(" ") : "'none'");
  const csp = [
    "default-src 'none'",
    `style-src ${sources(policy.styles)}`,
    `script-src ${sources(policy.scripts)}`,
    `img-src ${policy.images ? "https: http: data:" : "'none'"}`,
    `connect-src ${policy.fetchSelf ? "'self'" : "'none'"}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return { "content-security-policy": csp, "x-content-type-options": "nosniff", "referrer-policy": "same-origin" };
}
