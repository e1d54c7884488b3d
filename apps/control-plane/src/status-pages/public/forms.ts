import type { ServerResponse } from "node:http";
import escapeHtml from "escape-html";
import { PAGE_ACCESS } from "@vigil/domain";
import type { Response } from "../../http/json";
import { securityHeaders } from "./security-headers";

/** Field names of the sign-in forms. */
export const FIELDS = { password: "password", email: "email" } as const;

const FORM_STYLE =
  "body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}input,button{font:inherit;padding:.4rem;margin:.25rem 0}input{width:100%;box-sizing:border-box}";
const FORM_HEADERS = securityHeaders({ styles: [FORM_STYLE] });

/** A plain page of Vigil's own (forms and notices), never cached: it answers one visitor's state. */
export function sendPage(res: Response, status: number, title: string, body: string, headers: Record<string, string | number> = {}): void {
  const html = [
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${FORM_STYLE}</style>`,
    "</head><body>",
    body,
    "</body></html>",
  ].join("\n");
  (res as ServerResponse).writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
    "cache-control": "no-store",
    ...FORM_HEADERS,
    ...headers,
  });
  res.end(html);
}

/**
 * The form a protected page shows without a session: a password, or an
 * address to email a link to. It names nothing of the page, not even its title.
 */
export function signInForm(accessType: "password" | "email-domain", action: string, notice = ""): { title: string; body: string } {
  const field =
    accessType === "password"
      ? `<label for="password">Password</label>\n<input type="password" id="password" name="${FIELDS.password}" autocomplete="current-password" required autofocus>`
      : `<label for="email">Your work email address</label>\n<input type="email" id="email" name="${FIELDS.email}" autocomplete="email" required autofocus>`;
  const explanation =
    accessType === "password"
      ? "This status page is protected by a password."
      : `This status page is private. We will email you a sign-in link, valid for ${PAGE_ACCESS.signInLinkMinutes} minutes.`;
  return {
    title: "Sign in",
    body: [
      "<h1>Sign in</h1>",
      `<p>${explanation}</p>`,
      notice ? `<p role="alert"><strong>${escapeHtml(notice)}</strong></p>` : "",
      `<form method="post" action="${escapeHtml(action)}">`,
      field,
      `<button type="submit">${accessType === "password" ? "Sign in" : "Email me a link"}</button>`,
      "</form>",
    ].join("\n"),
  };
}

/** A notice with a link back to the page (where the form is), for every other answer of the sign-in flow. */
export function notice(heading: string, text: string, pageUrl: string, linkText: string): { title: string; body: string } {
  return {
    title: heading,
    body: `<h1>${escapeHtml(heading)}</h1>\n<p>${escapeHtml(text)}</p>\n<p><a href="${escapeHtml(pageUrl)}">${escapeHtml(linkText)}</a></p>`,
  };
}
