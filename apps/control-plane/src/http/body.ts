import { HttpError, type Request } from "./json";

/** A sign-in or a form is far below this. */
export const SMALL_BODY_MAX_BYTES = 16 * 1024;

/** A request's body, or null when it is larger than `maxBytes` (the rest is not read). */
export async function readBody(req: Request, maxBytes = SMALL_BODY_MAX_BYTES): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The first `keepBytes` of a request's body; the rest is read and let go, so that the answer can follow. */
export async function readBodyPrefix(req: Request, keepBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (size < keepBytes) chunks.push(chunk.subarray(0, keepBytes - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks);
}

/**
 * A JSON object sent as `application/json`. The content type is required:
 * a page on another site can send a form or `text/plain` without asking the
 * browser first, but not JSON.
 */
export async function readJsonBody(req: Request): Promise<Record<string, unknown>> {
  const type = (req.headers["content-type"] ?? "").split(";", 1)[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new HttpError("invalid_argument", "the body must be JSON sent as application/json");
  const body = await readBody(req);
  if (body === null) throw new HttpError("invalid_argument", `the body must be at most ${SMALL_BODY_MAX_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    throw new HttpError("invalid_argument", "the body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new HttpError("invalid_argument", "the body must be a JSON object");
  return value as Record<string, unknown>;
}
