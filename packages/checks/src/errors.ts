import type { FailureReason } from "@vigil/domain/alerting";

/** A failure of the target (or of the monitor's configuration), already worded for Attempt.error and named for Attempt.reason. */
export class TargetFailure extends Error {
  constructor(
    message: string,
    readonly reason: FailureReason,
  ) {
    super(message);
  }
}

/** The code of an error from Node (ECONNREFUSED, ENOTFOUND, HPE_INVALID_CONSTANT, ...), when it has one. */
export const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

/**
 * Duck-typed, not instanceof: errors from Node's core can come from another
 * realm than this module's Error (under Jest's VM contexts, for one).
 */
export const isErrorLike = (error: unknown): error is { name: string; message: string } =>
  typeof (error as { message?: unknown } | null)?.message === "string";

export const messageOf = (error: unknown): string => (isErrorLike(error) ? error.message : String(error));
