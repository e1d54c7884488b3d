import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { canWrite } from "./actor";
import { connectHeaders, type Callers } from "./callers";
import { actorKey, personKey } from "./context";

/**
 * Authenticates every call with an API key or a person's session
 * (callers.ts). A method the contract marks free of side effects
 * (idempotency_level NO_SIDE_EFFECTS: the list and get methods) is open to
 * readers; every other method is a mutation and needs the write scope (a
 * write key, or an editor's role or above). Services about people and keys
 * ask for more themselves (`requirePermission`). The `open` methods need no
 * credentials (accepting an invitation, whose token is one). `ssoRecovery`:
 * see Callers.actorOf.
 */
export function authInterceptor(callers: Callers, open: readonly DescMethod[] = [], options: { ssoRecovery?: boolean } = {}): Interceptor {
  return (next) => async (req) => {
    if (open.includes(req.method)) return next(req);
    const authenticate = () => callers.actorOf(connectHeaders(req.header), options);
    const actor = await authenticate();
    if (req.method.idempotency !== MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS && !canWrite(actor)) {
      const needs = actor.type === "user" ? `an editor's role or above (you are ${actor.role} in ${actor.workspace.slug})` : "an API key with the write scope";
      throw new ConnectError(`${req.method.name} changes data and needs ${needs}`, Code.PermissionDenied);
    }
    req.contextValues.set(actorKey, actor);
    const res = await next(req);
    if (!res.stream) return res;
    // A stream answers for as long as it stays open: each message goes out only while its caller still may read
    // (a key revoked, a session ended or a membership removed ends the stream with that refusal).
    return { ...res, message: whileAllowed(res.message, authenticate) };
  };
}

async function* whileAllowed<T>(messages: AsyncIterable<T>, authenticate: () => Promise<unknown>): AsyncGenerator<T> {
  for await (const message of messages) {
    await authenticate();
    yield message;
  }
}

/**
 * Authenticates a call about the caller's own account (AccountService): a
 * person's session, whether or not they belong to any workspace. It stands in
 * for authInterceptor, which needs a workspace to act in.
 */
export function personInterceptor(callers: Callers): Interceptor {
  return (next) => async (req) => {
    req.contextValues.set(personKey, await callers.personOf(connectHeaders(req.header)));
    return next(req);
  };
}
