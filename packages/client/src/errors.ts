import { Code, ConnectError } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";

/** Connect's error codes, by their names in snake case, as the API and its /v1 endpoints spell them. */
export type ErrorCode =
  | "canceled"
  | "unknown"
  | "invalid_argument"
  | "deadline_exceeded"
  | "not_found"
  | "already_exists"
  | "permission_denied"
  | "resource_exhausted"
  | "failed_precondition"
  | "aborted"
  | "out_of_range"
  | "unimplemented"
  | "internal"
  | "unavailable"
  | "data_loss"
  | "unauthenticated";

/** One broken rule of a request: the field by its camelCase JSON path (`statusPage.homepageUrl`) and the rule. */
export interface FieldViolation {
  field: string;
  rule: string;
}

/** The one error every call of the client throws. */
export class VigilError extends Error {
  override readonly name = "VigilError";

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Filled for invalid_argument answers that name fields; empty otherwise. */
    readonly violations: FieldViolation[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Sign-in was answered `totp_required`: the password is right and the account
 * has a second factor; sign in again with its code as `totp`.
 */
export class SecondFactorRequired extends VigilError {
  constructor(message: string) {
    super("unauthenticated", message);
  }
}

// The server writes a validation failure as "field: rule; field: rule" (domain ValidationError).
const VIOLATION = /^([^\s:;]+): ([\s\S]+)$/;
const BETWEEN_VIOLATIONS = /; (?=[^\s:;]+: )/;

/** The field violations an invalid_argument message lists, or none when the message is not such a list. */
export function parseViolations(message: string): FieldViolation[] {
  const parts = message.split(BETWEEN_VIOLATIONS).map((part) => VIOLATION.exec(part));
  if (parts.some((match) => match === null)) return [];
  return parts.map((match) => ({ field: match![1]!, rule: match![2]! }));
}

function fromConnectError(error: ConnectError): VigilError {
  const code = codeToString(error.code) as ErrorCode;
  const violations = error.code === Code.InvalidArgument ? parseViolations(error.rawMessage) : [];
  return new VigilError(code, error.rawMessage, violations, { cause: error });
}

/** Anything a call failed with, as a VigilError (unexpected failures become `unknown`). */
export function toVigilError(error: unknown): VigilError {
  if (error instanceof VigilError) return error;
  return fromConnectError(ConnectError.from(error));
}
