import type { ServerResponse } from "node:http";
import type { ReactNode } from "react";
import { PAGE_ACCESS } from "@vigil/domain";
import type { Words } from "./words";
import type { Response } from "../../http/json";
import { htmlDocument } from "./document";
import { securityHeaders } from "./security-headers";

/** Field names of the sign-in forms. */
export const FIELDS = { password: "password", email: "email", next: "next" } as const;

const FORM_STYLE =
  "body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}input,button{font:inherit;padding:.4rem;margin:.25rem 0}input{width:100%;box-sizing:border-box}";
const FORM_HEADERS = securityHeaders({ styles: [FORM_STYLE] });

/** A plain page of Vigil's own: its language (English unless it says), its title and what its <body> holds. */
export interface PlainPage {
  lang?: string;
  title: string;
  body: ReactNode;
}

/** A plain page (forms and notices), never cached: it answers one visitor's state. */
export function sendPage(res: Response, status: number, page: PlainPage, headers: Record<string, string | number> = {}): void {
  const html = htmlDocument(
    <html lang={page.lang ?? "en"}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{page.title}</title>
        <style dangerouslySetInnerHTML={{ __html: FORM_STYLE }} />
      </head>
      <body>{page.body}</body>
    </html>,
  );
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
 * `next` is the view the visitor asked for, where a password sign-in returns.
 */
export function signInForm(w: Words, accessType: "password" | "email-domain", action: string, notice = "", next = ""): PlainPage {
  const password = accessType === "password";
  return {
    lang: w.lang,
    title: w.t("signIn.title"),
    body: (
      <>
        <h1>{w.t("signIn.title")}</h1>
        <p>{password ? w.t("signIn.passwordIntro") : w.t("signIn.emailIntro", { minutes: PAGE_ACCESS.signInLinkMinutes })}</p>
        {notice && (
          <p role="alert">
            <strong>{notice}</strong>
          </p>
        )}
        <form method="post" action={action}>
          {next && <input type="hidden" name={FIELDS.next} value={next} />}
          {password ? (
            <>
              <label htmlFor="password">{w.t("signIn.password")}</label>
              <input type="password" id="password" name={FIELDS.password} autoComplete="current-password" required autoFocus />
            </>
          ) : (
            <>
              <label htmlFor="email">{w.t("signIn.email")}</label>
              <input type="email" id="email" name={FIELDS.email} autoComplete="email" required autoFocus />
            </>
          )}
          <button type="submit">{password ? w.t("signIn.submitPassword") : w.t("signIn.submitEmail")}</button>
        </form>
      </>
    ),
  };
}

/** A notice, with a link (to the page, where the form is) for every answer of the sign-in flow that has somewhere to go. */
export function notice(heading: string, text: string, link?: { href: string; text: string }, lang?: string): PlainPage {
  return {
    lang,
    title: heading,
    body: (
      <>
        <h1>{heading}</h1>
        <p>{text}</p>
        {link && (
          <p>
            <a href={link.href}>{link.text}</a>
          </p>
        )}
      </>
    ),
  };
}
