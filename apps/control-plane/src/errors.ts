import { Code, ConnectError } from "@connectrpc/connect";
import { ValidationError } from "@vigil/domain";
import { HttpError, type HttpErrorCode } from "./http/json";

export const notFound = (what: string) => new ConnectError(`${what} not found`, Code.NotFound);

/** What a client is told while PostgreSQL cannot be reached: the call did nothing, and trying again later is safe. */
export const DATABASE_UNAVAILABLE = "the database is unreachable; try again shortly";

/** Prisma's codes for a server out of reach, a connection lost or refused, and a pool that gave no connection in time. */
const PRISMA_UNAVAILABLE = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
/** The driver adapter's kinds for the same. */
const ADAPTER_UNAVAILABLE = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const SOCKET_UNAVAILABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH"]);
/** node-postgres answers a lost connection with plain Errors of these messages. */
const PG_UNAVAILABLE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended)/;

interface ErrorLike {
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/**
 * Whether `test` holds for the error or for one under it: its cause, or the driver adapter's error that Prisma
 * wraps (a few levels at most, as a cycle could otherwise go on forever).
 */
function inErrorChain(error: unknown, test: (e: ErrorLike) => boolean, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 5) return false;
  const e = error as ErrorLike;
  return test(e) || inErrorChain(e.cause, test, depth + 1) || inErrorChain(e.meta?.driverAdapterError, test, depth + 1);
}

/**
 * Whether an error means PostgreSQL is out of reach (down, restarting, cut
 * off, or every pooled connection busy past the pool's timeout), as opposed
 * to a query it refused. PostgreSQL's own codes for this are class 08
 * (connection exception) and 57P01-57P03 (shutting down, starting up).
 */
export const isDatabaseUnavailable = (error: unknown): boolean =>
  inErrorChain(error, (e) => {
    const code = typeof e.code === "string" ? e.code : "";
    if (PRISMA_UNAVAILABLE.has(code) || SOCKET_UNAVAILABLE.has(code) || /^08|^57P0[123]$/.test(code)) return true;
    if (typeof e.kind === "string" && ADAPTER_UNAVAILABLE.has(e.kind)) return true;
    return typeof e.message === "string" && PG_UNAVAILABLE.test(e.message.trim().split("\n").at(-1) ?? "");
  });

/**
 * Whether PostgreSQL ended a statement for a deadlock or a serialization failure (40P01, 40001): it did nothing, and
 * running it again is safe. Prisma names both P2034, the driver adapter TransactionWriteConflict.
 */
export const isWriteConflict = (error: unknown): boolean =>
  inErrorChain(error, (e) => e.code === "P2034" || e.code === "40P01" || e.code === "40001" || e.kind === "TransactionWriteConflict");

/**
 * A message as it can be sent: a rule quoting a request's text may hold a lone
 * surrogate, which gRPC's grpc-message trailer cannot percent-encode
 * (encodeURIComponent throws, and the answer is never written). U+FFFD stands in.
 */
const wellFormed = (text: string) => text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");

/**
 * The error a client sees for anything a handler throws: domain validation
 * becomes invalid_argument naming the field and rule; ConnectErrors pass
 * through; an unreachable database is unavailable (so clients retry);
 * anything else is internal, with details kept out of the answer.
 */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof ValidationError) return new ConnectError(wellFormed(error.message), Code.InvalidArgument);
  if (error instanceof ConnectError) {
    const message = wellFormed(error.rawMessage);
    return message === error.rawMessage ? error : new ConnectError(message, error.code, error.metadata, error.details as ConstructorParameters<typeof ConnectError>[3], error.cause);
  }
  if (isDatabaseUnavailable(error)) return new ConnectError(DATABASE_UNAVAILABLE, Code.Unavailable, undefined, undefined, error);
  return new ConnectError("internal error", Code.Internal, undefined, undefined, error);
}

const HTTP_CODES: Partial<Record<Code, HttpErrorCode>> = {
  [Code.InvalidArgument]: "invalid_argument",
  [Code.Unauthenticated]: "unauthenticated",
  [Code.PermissionDenied]: "permission_denied",
  [Code.NotFound]: "not_found",
  [Code.ResourceExhausted]: "resource_exhausted",
  [Code.Unavailable]: "unavailable",
};

/**
 * The same for the plain HTTP endpoints: their own errors pass through, a
 * rule broken is 400, what the RPC's shared checks refuse keeps its code, an
 * unreachable database is 503.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof ValidationError) return new HttpError("invalid_argument", error.message);
  const code = error instanceof ConnectError ? HTTP_CODES[error.code] : undefined;
  if (code) return new HttpError(code, (error as ConnectError).rawMessage);
  if (isDatabaseUnavailable(error)) return new HttpError("unavailable", DATABASE_UNAVAILABLE);
  return new HttpError("internal", "internal error");
}
