import type { PrismaClient } from "@vigil/db";
import { API_KEYS } from "@vigil/domain";
import type { KeyActor as Actor } from "./actor";
import { actorOf, hashApiKey } from "./api-keys";

/**
 * How long a verified key is trusted without asking the database. Revocations
 * reach every control plane at once (revocation-relay.ts); this bounds what a
 * change that bypasses them (a key or workspace deleted in the database, a
 * revocation sent while Redis was away) leaves behind.
 */
export const VERIFIED_KEY_TTL_MS = 5_000;
/**
 * A key in use is looked up again in the background this long before its copy
 * expires, so that its callers never wait for the lookup: at expiry every call
 * of a busy key waited for it, and behind a busy database (PGlite's one
 * session) that held calls up to 120 ms every five seconds.
 */
export const VERIFIED_KEY_REFRESH_MS = 1_000;

interface Entry {
  actor: Actor;
  /** When this copy expires: the TTL, or the key's own expiry when sooner. */
  expiresAt: number;
  /** The key's last use as written in the database (0: never). */
  lastUsedAt: number;
}

const TOUCH_MS = API_KEYS.lastUsedTouchSeconds * 1000;

interface Options {
  ttlMs: number;
  refreshMs: number;
  now: () => number;
}

/**
 * The actors behind the API keys callers present, kept for a short while so
 * that a call does not cost a database lookup of its key. Only valid keys are
 * kept: an unknown key is looked up on every call, so a key created after a
 * miss works at once, and guessed keys cannot fill the memory. The calls that
 * need a key while it is being looked up share that lookup.
 */
export class VerifiedKeys {
  /** By the key's SHA-256, so that no secret stays in memory after its request. */
  private readonly entries = new Map<string, Entry>();
  private readonly lookups = new Map<string, Promise<Actor | null>>();
  /** Counts forgets, so that a lookup that raced a revocation does not put the revoked key back. */
  private generation = 0;
  private readonly options: Options;

  constructor(
    private readonly prisma: PrismaClient,
    options: Partial<Options> = {},
  ) {
    this.options = { ttlMs: VERIFIED_KEY_TTL_MS, refreshMs: VERIFIED_KEY_REFRESH_MS, now: Date.now, ...options };
  }

  /** The actor behind a presented key, or null for a missing, unknown, revoked or expired key. */
  async actorFor(presented: string | null | undefined): Promise<Actor | null> {
    if (!presented) return null;
    const secretHash = hashApiKey(presented);
    const now = this.options.now();
    const cached = this.entries.get(secretHash);
    if (cached && cached.expiresAt > now) {
      // A failed refresh leaves the copy to expire; the call after that asks, and hears the error.
      if (cached.expiresAt - now <= this.options.refreshMs) this.lookUp(secretHash, now).catch(() => {});
      await this.touch(cached, now);
      return cached.actor;
    }
    this.entries.delete(secretHash);
    const actor = await this.lookUp(secretHash, now);
    const entry = this.entries.get(secretHash);
    if (actor && entry) await this.touch(entry, now);
    return actor;
  }

  /**
   * Writes a key's last use when the one known is a minute old or more, so a
   * busy key costs one write a minute, not one a call. The copy remembers the
   * write at once, so calls of this control plane do not repeat it; the
   * condition on the row keeps the other control planes (whose copies learn
   * of it at their next lookup) from writing it again within the minute.
   */
  private async touch(entry: Entry, now: number): Promise<void> {
    if (now - entry.lastUsedAt < TOUCH_MS) return;
    const known = entry.lastUsedAt;
    entry.lastUsedAt = now;
    try {
      await this.prisma.apiKey.updateMany({
        where: { id: entry.actor.keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: new Date(now - TOUCH_MS) } }] },
        data: { lastUsedAt: new Date(now) },
      });
    } catch {
      // A key verified from its copy keeps working while the database is away; its last use is written by a later call.
      entry.lastUsedAt = known;
    }
  }

  /** Stops trusting a key (revoked here or on another control plane). */
  forget(keyId: string): void {
    this.generation++;
    // A lookup under way may have read the key before it was revoked: later calls must not share it.
    this.lookups.clear();
    for (const [hash, entry] of this.entries) if (entry.actor.keyId === keyId) this.entries.delete(hash);
  }

  /** Stops trusting every key, when revocations may have been missed (Redis was away). */
  forgetAll(): void {
    this.generation++;
    this.lookups.clear();
    this.entries.clear();
  }

  private lookUp(secretHash: string, now: number): Promise<Actor | null> {
    const underWay = this.lookups.get(secretHash);
    if (underWay) return underWay;
    const generation = this.generation;
    const lookup = this.prisma.apiKey
      .findUnique({ where: { secretHash }, include: { workspace: true } })
      .then((key) => {
        const expiry = key?.expiresAt?.getTime() ?? Infinity;
        const actor = key && !key.revokedAt && expiry > this.options.now() ? actorOf(key) : null;
        if (generation === this.generation) {
          if (actor) {
            const lastUsedAt = Math.max(key!.lastUsedAt?.getTime() ?? 0, this.entries.get(secretHash)?.lastUsedAt ?? 0);
            this.entries.set(secretHash, { actor, expiresAt: Math.min(now + this.options.ttlMs, expiry), lastUsedAt });
          } else this.entries.delete(secretHash);
        }
        return actor;
      })
      .finally(() => {
        if (this.lookups.get(secretHash) === lookup) this.lookups.delete(secretHash);
      });
    this.lookups.set(secretHash, lookup);
    return lookup;
  }
}
