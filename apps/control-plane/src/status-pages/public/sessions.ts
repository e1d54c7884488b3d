import { createHmac, timingSafeEqual } from "node:crypto";
import { parseCookie, stringifySetCookie } from "cookie";
import { PAGE_ACCESS } from "@vigil/domain";
import type { Request } from "../../http/json";

/** What a session is bound to: a page as it was when the visitor signed in. */
export interface SessionPage {
  id: string;
  accessVersion: number;
}

const SESSION_SECONDS = PAGE_ACCESS.sessionDays * 24 * 60 * 60;

/** One cookie per page, so that sessions of several pages on one host live side by side. */
const cookieName = (pageId: string) => `vigil_page_${pageId}`;

/**
 * Session cookies of status pages: `<accessVersion>.<expiry>.<HMAC-SHA256>`
 * over the page id, version and expiry. The version makes a change of who
 * may read the page (a new password, other domains) end every session; the
 * expiry is signed so a client cannot keep a cookie past it.
 */
export class PageSessions {
  constructor(private readonly key: Buffer) {}

  /** The Set-Cookie value that opens a session on `page`. */
  open(page: SessionPage, options: { secure: boolean; now?: Date }): string {
    const expires = Math.floor((options.now ?? new Date()).getTime() / 1000) + SESSION_SECONDS;
    const payload = `${page.accessVersion}.${expires}`;
    return stringifySetCookie({
      name: cookieName(page.id),
      value: `${payload}.${this.sign(page.id, payload)}`,
      path: "/",
      maxAge: SESSION_SECONDS,
      httpOnly: true,
      sameSite: "lax",
      secure: options.secure,
    });
  }

  /** Whether the request carries a valid, unexpired session of the page at its current access version. */
  holds(req: Request, page: SessionPage, now = new Date()): boolean {
    const header = req.headers.cookie;
    if (!header) return false;
    const value = parseCookie(header)[cookieName(page.id)];
    const [version, expires, signature] = value?.split(".") ?? [];
    if (!version || !expires || !signature) return false;
    const expected = Buffer.from(this.sign(page.id, `${version}.${expires}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    return Number(version) === page.accessVersion && Number(expires) * 1000 > now.getTime();
  }

  private sign(pageId: string, payload: string): string {
    return createHmac("sha256", this.key).update(`${pageId}.${payload}`).digest("base64url");
  }
}
