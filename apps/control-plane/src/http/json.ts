import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";

export type Request = IncomingMessage | Http2ServerRequest;
export type Response = ServerResponse | Http2ServerResponse;

/** Error codes of the plain HTTP endpoints: Connect's code names, with their HTTP statuses. */
export const HTTP_ERRORS = {
  invalid_argument: 400,
  unauthenticated: 401,
  /** Sign-in: the password is right and the account's second factor is missing. */
  totp_required: 401,
  permission_denied: 403,
  not_found: 404,
  resource_exhausted: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
} as const;
export type HttpErrorCode = keyof typeof HTTP_ERRORS;

export class HttpError extends Error {
  constructor(
    readonly code: HttpErrorCode,
    message: string,
    /** Sent with the answer (Retry-After of a rate limit). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  (res as ServerResponse).writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
  res.end(payload);
}

/** Every error of the HTTP endpoints has this body: `{"code": "not_found", "message": "..."}`. */
export function sendError(res: Response, error: HttpError): void {
  sendJson(res, HTTP_ERRORS[error.code], { code: error.code, message: error.message }, error.headers);
}
