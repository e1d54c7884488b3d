import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { HTTPVersion, Instance } from "find-my-way";
import type { Logger } from "@vigil/logging";
import { HttpError, sendError, type Request, type Response } from "../http/json";
import { acceptsGzip, matchesEtag } from "../http/conditional";

/** Where the console is served; `/` of the service's own address leads here. */
export const CONSOLE_PATH = "/app/";

/** apps/console/dist beside this app, from its sources (tests) as from its dist/ (CONSOLE_DIR overrides it). */
export const DEFAULT_CONSOLE_DIR = path.resolve(__dirname, "../../../console/dist");

/** Vite names what it builds under assets/ by a hash of the content: such a name never changes meaning. */
const IMMUTABLE = "public, max-age=31536000, immutable";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};
const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json", ".txt"]);

/**
 * The console's own scripts and styles and nothing else: no inline script or
 * style, no other origin; RPCs and /v1/auth/* go to this origin only. The SSO
 * button navigates (it does not post a form), so form-action stays 'self'.
 */
const CONSOLE_HEADERS = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  // Invitation and reset links carry their token in the query: no other site may see it in a Referer.
  "referrer-policy": "same-origin",
};

interface ConsoleFile {
  body: Buffer;
  gzipped: Buffer | null;
  contentType: string;
  etag: string;
  cacheControl: string;
}

/** The built console by path under /app/; null where it is not built. */
export type ConsoleFiles = ReadonlyMap<string, ConsoleFile> | null;

/** The built console, read into memory once: a few small files, and no path from a request ever reaches the disk. */
export async function loadConsoleFiles(dir: string, logger: Logger): Promise<ConsoleFiles> {
  const files = await readConsole(dir);
  if (!files) logger.warn({ consoleDir: dir }, "the console is not built (no index.html in CONSOLE_DIR): /app/ answers 503 until it is");
  return files;
}

async function readConsole(dir: string): Promise<Map<string, ConsoleFile> | null> {
  let names: string[];
  try {
    names = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const files = new Map<string, ConsoleFile>();
  for (const name of names) {
    const extension = path.extname(name);
    const body = await readFile(path.join(dir, name));
    const urlPath = name.split(path.sep).join("/");
    files.set(urlPath, {
      body,
      gzipped: COMPRESSIBLE.has(extension) ? gzipSync(body) : null,
      contentType: CONTENT_TYPES[extension] ?? "application/octet-stream",
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
      cacheControl: urlPath.startsWith("assets/") ? IMMUTABLE : "no-cache",
    });
  }
  return files.has("index.html") ? files : null;
}

/**
 * GET /app/… on the service's own address: the built files by name, and
 * index.html for every other path (the console's pages are routed in the
 * browser). A missing asset is a 404, not the page, so that a stale script
 * name fails visibly.
 */
export function consoleRoutes(router: Instance<HTTPVersion.V1>, files: ConsoleFiles, isOwnAddress: (req: Request) => boolean): void {
  const serve = (req: Request, res: Response, name: string) => {
    // A status page's custom domain is its owner's name: Vigil's sign-in (and its cookie) stay on Vigil's own.
    if (!isOwnAddress(req)) return sendError(res, new HttpError("not_found", `no endpoint ${req.method} ${req.url}`));
    if (!files) return sendError(res, new HttpError("unavailable", "the console is not built on this server: run `pnpm build` (or set CONSOLE_DIR)"));
    const file = files.get(name) ?? (name.startsWith("assets/") ? undefined : files.get("index.html"));
    if (!file) return sendError(res, new HttpError("not_found", `no console file ${name}`));
    send(req, res, file);
  };
  // With the router's ignoreTrailingSlash this is /app and /app/ too, which the wildcard does not match.
  router.on("GET", CONSOLE_PATH, (req, res) => serve(req, res, ""));
  router.on("GET", `${CONSOLE_PATH}*`, (req, res, params) => serve(req, res, params["*"] ?? ""));
}

function send(req: Request, res: Response, file: ConsoleFile): void {
  const headers = { ...CONSOLE_HEADERS, etag: file.etag, "cache-control": file.cacheControl, vary: "Accept-Encoding" };
  if (matchesEtag(req.headers["if-none-match"], file.etag)) {
    res.writeHead(304, headers).end();
    return;
  }
  const body = file.gzipped && acceptsGzip(req.headers["accept-encoding"]) ? file.gzipped : null;
  res
    .writeHead(200, { ...headers, "content-type": file.contentType, "content-length": (body ?? file.body).length, ...(body && { "content-encoding": "gzip" }) })
    .end(body ?? file.body);
}
