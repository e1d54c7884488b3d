import { createHash, randomBytes } from "node:crypto";
import type { ApiKeyRow, WorkspaceRow } from "@vigil/db";

export const API_KEY_HEADER = "x-service-key";

export type Scope = "read" | "write";
/** "none" makes a legacy key without scopes, as keys were before scopes existed. */
export type ScopeChoice = Scope | "none";

/** Who is calling: a workspace, through one of its API keys. */
export interface Actor {
  type: "apiKey";
  keyId: string;
  /** The scopes the key acts with: a legacy key (no stored scopes) acts as write. */
  scopes: Scope[];
  workspace: Pick<WorkspaceRow, "id" | "name" | "slug" | "plan">;
}

const KEY_PREFIX = "vgl_";
/** How much of a key listings show, enough to recognise it and useless to an attacker. */
const SHOWN_CHARS = KEY_PREFIX.length + 8;

/** Keys carry 256 random bits, so a fast hash is as safe as a slow one and keeps lookups cheap. */
export const hashApiKey = (key: string) => createHash("sha256").update(key).digest("hex");

export function newApiKeySecret(): { key: string; prefix: string; secretHash: string } {
  const key = KEY_PREFIX + randomBytes(32).toString("base64url");
  return { key, prefix: key.slice(0, SHOWN_CHARS), secretHash: hashApiKey(key) };
}

export function effectiveScopes(stored: string[]): Scope[] {
  return stored.length === 0 ? ["write"] : (stored.filter((s) => s === "read" || s === "write") as Scope[]);
}

export const canWrite = (actor: Actor) => actor.scopes.includes("write");

export function actorOf(key: ApiKeyRow & { workspace: WorkspaceRow }): Actor {
  const { id, name, slug, plan } = key.workspace;
  return { type: "apiKey", keyId: key.id, scopes: effectiveScopes(key.scopes), workspace: { id, name, slug, plan } };
}
