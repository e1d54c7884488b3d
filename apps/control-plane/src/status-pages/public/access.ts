import type { ServerResponse } from "node:http";
import type { Request, Response } from "../../http/json";
import { pagePath, signInPath, type PageAddress } from "./addresses";
import { sendPage, signInForm } from "./forms";
import type { PageSessions } from "./sessions";

/** What access control needs to know of a page (a stored StatusPage has all of it). */
export interface PageAccess extends PageAddress {
  id: string;
  accessType: string;
  accessVersion: number;
}

/**
 * The deployment's session keys, set when the sign-in routes are registered
 * (registerSignInRoutes). One deployment per process: a second server in the
 * same process replaces them.
 */
let sessions: PageSessions | null = null;

export function useSessions(deploymentSessions: PageSessions): void {
  sessions = deploymentSessions;
}

/** Whether the request holds a session of the page (always true for a public page). */
function hasAccess(req: Request, page: PageAccess): boolean {
  return page.accessType === "public" || (sessions?.holds(req, page) ?? false);
}

/**
 * Whether the request may read the page. When it may not, the answer has
 * been sent and the caller stops: at the page's own address the sign-in form
 * (401), at a companion (summary.json, badge.svg, feed.atom) a plain 401.
 * Protected answers are private to the visitor: no shared cache keeps them.
 */
export async function authorize(req: Request, res: Response, page: PageAccess): Promise<boolean> {
  if (page.accessType === "public") return true;
  res.setHeader("cache-control", "private");
  res.setHeader("vary", "Cookie");
  if (hasAccess(req, page)) return true;

  const path = (req.url ?? "/").split("?")[0]?.replace(/(.)\/+$/, "$1");
  if (path === pagePath(req, page) && (page.accessType === "password" || page.accessType === "email-domain")) {
    const form = signInForm(page.accessType, signInPath(req, page));
    sendPage(res, 401, form.title, form.body);
  } else {
    const text = `sign in at ${pagePath(req, page)} to read this status page\n`;
    (res as ServerResponse).writeHead(401, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }).end(text);
  }
  return false;
}
