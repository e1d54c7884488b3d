import type { ServerResponse } from "node:http";
import type { Request, Response } from "../../http/json";
import type { PageHosts, PageLocation } from "./addresses";
import { sendPage, signInForm } from "./forms";
import { securityHeaders } from "./security-headers";
import type { PageSessions } from "./sessions";
import type { Words } from "./words";

/** What access control needs to know of a page (a stored StatusPage has all of it). */
export interface PageAccess extends PageLocation {
  id: string;
  accessType: string;
  accessVersion: number;
}

/**
 * Who may read a protected page: a public page, anyone; any other, a
 * visitor holding a session of it (sessions.ts).
 */
export class PageAccessControl {
  constructor(
    private readonly sessions: PageSessions,
    private readonly hosts: PageHosts,
  ) {}

  /**
   * Whether the request may read the page. When it may not, the answer has
   * been sent and the caller stops: at one of the page's HTML views (the page,
   * its history, an incident's page) the sign-in form (401), which brings the
   * visitor back to that view; at a companion (summary.json, badge.svg,
   * feed.atom) a plain 401. Protected answers are private to the visitor: no
   * shared cache keeps them.
   */
  async authorize(req: Request, res: Response, page: PageAccess, view: "html" | "data", words: Words): Promise<boolean> {
    if (page.accessType === "public") return true;
    res.setHeader("cache-control", "private");
    res.setHeader("vary", "Cookie");
    if (this.sessions.holds(req, page)) return true;

    if (view === "html" && (page.accessType === "password" || page.accessType === "email-domain")) {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      sendPage(res, 401, signInForm(words, page.accessType, this.hosts.signInPath(req, page), "", path));
    } else {
      const text = `sign in at ${this.hosts.pagePath(req, page)} to read this status page\n`;
      (res as ServerResponse).writeHead(401, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...securityHeaders() }).end(text);
    }
    return false;
  }
}
