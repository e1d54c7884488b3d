import { Code, ConnectError, createContextKey, type HandlerContext } from "@connectrpc/connect";
import { canWrite, type Actor } from "./api-keys";

export const actorKey = createContextKey<Actor | undefined>(undefined, { description: "the authenticated caller" });

/** The caller the auth interceptor resolved for this request. */
export function actorOf(ctx: HandlerContext): Actor {
  const actor = ctx.values.get(actorKey);
  if (!actor) throw new ConnectError("missing credentials", Code.Unauthenticated);
  return actor;
}

/** Whether the caller holds a read key, which is answered credentials redacted (credentials.ts in @vigil/domain). */
export const readsOnly = (ctx: HandlerContext): boolean => !canWrite(actorOf(ctx));
