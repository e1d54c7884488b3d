import { createHash } from "node:crypto";

/**
 * The first 16 hex digits of SHA-256 over "<owner id>:<value>", as the API
 * answers for stored secrets (a channel's keys, a page's password): enough
 * for a client to tell whether its copy is the stored one, nothing to
 * recover it from. Salting with the owner's id keeps equal secrets of two
 * owners from looking equal.
 */
export function secretFingerprint(ownerId: string, value: string): string {
  return createHash("sha256").update(`${ownerId}:${value}`).digest("hex").slice(0, 16);
}
