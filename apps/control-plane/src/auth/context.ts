import { Code, ConnectError, createContextKey, type HandlerContext } from "@connectrpc/connect";
import type { Permission } from "@vigil/domain";
import { can, canWrite, type Actor, type Person } from "./actor";

export const actorKey = createContextKey<Actor | undefined>(undefined, { description: "the authenticated caller" });

export const personKey = createContextKey<Person | undefined>(undefined, { description: "the signed-in person" });

/** The person the person interceptor resolved for this request. */
export function personOf(ctx: HandlerContext): Person {
  const person = ctx.values.get(personKey);
  if (!person) throw new ConnectError("missing credentials", Code.Unauthenticated);
  return person;
}

/** The caller the auth interceptor resolved for this request. */
export function actorOf(ctx: HandlerContext): Actor {
  const actor = ctx.values.get(actorKey);
  if (!actor) throw new ConnectError("missing credentials", Code.Unauthenticated);
  return actor;
}

/** Whether the caller reads only (a read key, a viewer), which is answered credentials redacted (credentials.ts in @vigil/domain). */
export const readsOnly = (ctx: HandlerContext): boolean => !canWrite(actorOf(ctx));

const PERMISSION_NEEDS: Record<Permission, string> = {
  read: "read access",
  write: "an editor's role or a write key",
  members: "an admin's or owner's role",
  keys: "an admin's or owner's role",
  audit: "an admin's or owner's role",
  own: "an owner's role",
};

/** The caller, when it may do what `permission` allows; permission_denied otherwise. */
export function requirePermission(ctx: HandlerContext, permission: Permission): Actor {
  const actor = actorOf(ctx);
  if (can(actor, permission)) return actor;
  const caller =
    actor.type === "user"
      ? ` (you are ${actor.role} in ${actor.workspace.slug})`
      : can({ ...actor, scopes: ["write"] }, permission)
        ? ""
        : "; no API key may do it (a key acts as an editor at most): sign in as a person";
  throw new ConnectError(`this needs ${PERMISSION_NEEDS[permission]}${caller}`, Code.PermissionDenied);
}
