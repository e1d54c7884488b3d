import Negotiator from "negotiator";
import { PAGE_LANGUAGES, type PageLanguage } from "@vigil/domain";
import type { Request } from "../../http/json";
import { wordsOf, type Words } from "./words";

const isPageLanguage = (code: string): code is PageLanguage => (PAGE_LANGUAGES as readonly string[]).includes(code);

/** The words of every language, made once: a request picks one. */
const CHOSEN = new Map(PAGE_LANGUAGES.map((lang) => [lang, wordsOf(lang, true)]));
const NEGOTIATED = new Map(PAGE_LANGUAGES.map((lang) => [lang, wordsOf(lang)]));

/** The words of a page's own language (English for a stored value that is none of them). */
export const pageWords = (pageLanguage: string): Words => NEGOTIATED.get(isPageLanguage(pageLanguage) ? pageLanguage : "en")!;

/**
 * The language a visitor reads a page in: `?lang=<code>` when it is one of
 * the pages' languages (links then keep it), else the best of them that
 * Accept-Language takes (the page's own language winning a tie, `de-AT`
 * taking `de`), else the page's own.
 */
export function wordsFor(req: Request, pageLanguage: string): Words {
  const asked = new URL(req.url ?? "/", "http://page").searchParams.get("lang")?.toLowerCase() ?? "";
  if (isPageLanguage(asked)) return CHOSEN.get(asked)!;
  const own = pageWords(pageLanguage);
  const header = req.headers["accept-language"];
  const accepted = header ? new Negotiator({ headers: { "accept-language": header } }).language([own.lang, ...PAGE_LANGUAGES.filter((lang) => lang !== own.lang)]) : undefined;
  return accepted !== undefined && isPageLanguage(accepted) ? NEGOTIATED.get(accepted)! : own;
}
