import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { API_KEY_HEADER, canWrite } from "./api-keys";
import { actorKey } from "./context";
import type { VerifiedKeys } from "./verified-keys";

/**
 * Authenticates every call with the `x-service-key` header. A method the
 * contract marks free of side effects (idempotency_level NO_SIDE_EFFECTS: the
 * list and get methods) is open to read keys; every other method is a mutation
 * and needs the write scope.
 */
export function authInterceptor(keys: VerifiedKeys): Interceptor {
  return (next) => async (req) => {
    const actor = await keys.actorFor(req.header.get(API_KEY_HEADER));
    if (!actor) {
      throw new ConnectError(`missing, unknown or revoked API key in the ${API_KEY_HEADER} header`, Code.Unauthenticated);
    }
    if (req.method.idempotency !== MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS && !canWrite(actor)) {
      throw new ConnectError(`${req.method.name} changes data and needs an API key with the write scope`, Code.PermissionDenied);
    }
    req.contextValues.set(actorKey, actor);
    return next(req);
  };
}
