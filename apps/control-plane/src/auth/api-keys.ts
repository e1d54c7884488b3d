import { createHash, randomBytes } from "node:crypto";
import type { ApiKeyRow, WorkspaceRow } from "@vigil/db";
import type { KeyActor, Scope } from "./actor";

export const API_KEY_HEADER = "x-service-key";

/** "none" makes a legacy key without scopes, as keys were before scopes existed. */
export type ScopeChoice = Scope | "none";

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

export function actorOf(key: ApiKeyRow & { workspace: WorkspaceRow }): KeyActor {
  const { id, name, slug, plan } = key.workspace;
  return { type: "apiKey", keyId: key.id, scopes: effectiveScopes(key.scopes), workspace: { id, name, slug, plan } };
}
