import { Code, ConnectError } from "@connectrpc/connect";
import { ValidationError } from "@vigil/domain";

export const notFound = (what: string) => new ConnectError(`${what} not found`, Code.NotFound);

/**
 * The error a client sees for anything a handler throws: domain validation
 * becomes invalid_argument naming the field and rule; ConnectErrors pass
 * through; anything else is internal, with details kept out of the answer.
 */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof ValidationError) return new ConnectError(error.message, Code.InvalidArgument);
  if (error instanceof ConnectError) return error;
  return new ConnectError("internal error", Code.Internal, undefined, undefined, error);
}
