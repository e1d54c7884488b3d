import type { Request, Response } from "../../http/json";

/** What access control needs to know of a page. */
export interface PageAccess {
  id: string;
  slug: string;
  accessType: string;
  accessVersion: number;
}

/**
 * Whether the request may read the page. When it may not, the answer (a
 * sign-in form, a 401 or a redirect) has been sent and the caller stops.
 */
export async function authorize(_req: Request, res: Response, page: PageAccess): Promise<boolean> {
  if (page.accessType === "public") return true;
  res.writeHead(401, { "content-type": "text/plain; charset=utf-8", "cache-control": "private, no-store" }).end("sign-in required\n");
  return false;
}
