import type { PrismaClient } from "@vigil/db";
import { actorOf, hashApiKey, type Actor } from "./api-keys";

/**
 * How long a verified key is trusted without asking the database. Revocations
 * reach every control plane at once (revocation-relay.ts); this bounds what a
 * change that bypasses them (a key or workspace deleted in the database, a
 * revocation sent while Redis was away) leaves behind.
 */
export const VERIFIED_KEY_TTL_MS = 5_000;

interface Entry {
  actor: Actor;
  expiresAt: number;
}

/**
 * The actors behind the API keys callers present, kept for a short while so
 * that a call does not cost a database lookup of its key. Only valid keys are
 * kept: an unknown key is looked up on every call, so a key created after a
 * miss works at once, and guessed keys cannot fill the memory.
 */
export class VerifiedKeys {
  /** By the key's SHA-256, so that no secret stays in memory after its request. */
  private readonly entries = new Map<string, Entry>();
  /** Counts forgets, so that a lookup that raced a revocation does not put the revoked key back. */
  private generation = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly options: { ttlMs: number; now: () => number } = { ttlMs: VERIFIED_KEY_TTL_MS, now: Date.now },
  ) {}

  /** The actor behind a presented key, or null for a missing, unknown or revoked key. */
  async actorFor(presented: string | null | undefined): Promise<Actor | null> {
    if (!presented) return null;
    const secretHash = hashApiKey(presented);
    const now = this.options.now();
    const cached = this.entries.get(secretHash);
    if (cached && cached.expiresAt > now) return cached.actor;
    this.entries.delete(secretHash);

    const generation = this.generation;
    const key = await this.prisma.apiKey.findUnique({ where: { secretHash }, include: { workspace: true } });
    if (!key || key.revokedAt) return null;
    const actor = actorOf(key);
    if (generation === this.generation) this.entries.set(secretHash, { actor, expiresAt: now + this.options.ttlMs });
    return actor;
  }

  /** Stops trusting a key (revoked here or on another control plane). */
  forget(keyId: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (entry.actor.keyId === keyId) this.entries.delete(hash);
  }

  /** Stops trusting every key, when revocations may have been missed (Redis was away). */
  forgetAll(): void {
    this.generation++;
    this.entries.clear();
  }
}
