import { roleCan, type Permission, type Role } from "@vigil/domain";
import type { WorkspaceRow } from "@vigil/db";

export type Scope = "read" | "write";

type ActorWorkspace = Pick<WorkspaceRow, "id" | "name" | "slug" | "plan">;

/** A caller with one of the workspace's API keys. */
export interface KeyActor {
  type: "apiKey";
  keyId: string;
  /** The scopes the key acts with: a legacy key (no stored scopes) acts as write. */
  scopes: Scope[];
  workspace: ActorWorkspace;
}

/** A person signed in with a session, acting in one of their workspaces with their role there. */
export interface UserActor {
  type: "user";
  userId: string;
  email: string;
  role: Role;
  sessionId: string;
  /** What the role implies, as a key's scopes (scopesOfRole). */
  scopes: Scope[];
  workspace: ActorWorkspace;
}

/** A signed-in person, whatever workspaces they belong to: whom AccountService answers. */
export type Person = Pick<UserActor, "userId" | "email" | "sessionId">;

/** Who is calling. */
export type Actor = KeyActor | UserActor;

/** Whether the caller may do something: a person by their role; a key reads, and writes with the write scope, and does no more. */
export function can(actor: Actor, permission: Permission): boolean {
  if (actor.type === "user") return roleCan(actor.role, permission);
  return permission === "read" || (permission === "write" && actor.scopes.includes("write"));
}

export const canWrite = (actor: Actor) => can(actor, "write");
