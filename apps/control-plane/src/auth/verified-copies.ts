/**
 * How long what a credential resolves to is trusted without asking the
 * database. Revocations reach every control plane at once (revocation-relay.ts);
 * this bounds what a change that bypasses them (a row deleted in the database,
 * a revocation sent while Redis was away) leaves behind.
 */
export const VERIFIED_COPY_TTL_MS = 5_000;
/**
 * A credential in use is looked up again in the background this long before
 * its copy expires, so that its callers never wait for the lookup: at expiry
 * every call of a busy credential waited for it, and behind a busy database
 * (PGlite's one session) that held calls up to 120 ms every five seconds.
 */
export const VERIFIED_COPY_REFRESH_MS = 1_000;

export interface CopyOptions {
  ttlMs: number;
  refreshMs: number;
  now: () => number;
}

/** A lookup's answer: the value, and the time after which it must not be trusted even within the TTL (the credential's own expiry). */
export type Found<T> = { value: T; validUntil: number } | null;

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * Short-lived copies of what the credentials callers present (API keys,
 * session cookies) resolve to, so that a call does not cost a database lookup
 * of its credential. Keyed by the credential's SHA-256, so that no secret
 * stays in memory after its request. Only valid credentials are kept: an
 * unknown one is looked up on every call, so one created after a miss works
 * at once, and guesses cannot fill the memory. The calls that need a
 * credential while it is being looked up share that lookup.
 */
export class VerifiedCopies<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly lookups = new Map<string, Promise<T | null>>();
  /** Counts forgets, so that a lookup that raced a revocation does not put the revoked credential back. */
  private generation = 0;
  readonly options: CopyOptions;

  constructor(
    /** Reads a credential by its hash from the database; `previous` is the copy it replaces, if any. */
    private readonly read: (hash: string, previous: T | undefined) => Promise<Found<T>>,
    options: Partial<CopyOptions> = {},
  ) {
    this.options = { ttlMs: VERIFIED_COPY_TTL_MS, refreshMs: VERIFIED_COPY_REFRESH_MS, now: Date.now, ...options };
  }

  /** What the credential with this hash resolves to, or null for an unknown, revoked or expired one. */
  async get(hash: string): Promise<T | null> {
    const now = this.options.now();
    const cached = this.entries.get(hash);
    if (cached && cached.expiresAt > now) {
      // A failed refresh leaves the copy to expire; the call after that asks, and hears the error.
      if (cached.expiresAt - now <= this.options.refreshMs) this.lookUp(hash, now).catch(() => {});
      return cached.value;
    }
    this.entries.delete(hash);
    return this.lookUp(hash, now);
  }

  /** Stops trusting every copy `revoked` matches (revoked here or on another control plane). */
  forget(revoked: (value: T) => boolean): void {
    this.generation++;
    // A lookup under way may have read the credential before it was revoked: later calls must not share it.
    this.lookups.clear();
    for (const [hash, entry] of this.entries) if (revoked(entry.value)) this.entries.delete(hash);
  }

  /** Stops trusting every copy, when revocations may have been missed (Redis was away). */
  forgetAll(): void {
    this.forget(() => true);
  }

  private lookUp(hash: string, now: number): Promise<T | null> {
    const underWay = this.lookups.get(hash);
    if (underWay) return underWay;
    const generation = this.generation;
    const lookup = this.read(hash, this.entries.get(hash)?.value)
      .then((found) => {
        const valid = found !== null && found.validUntil > this.options.now();
        if (generation === this.generation) {
          if (valid) this.entries.set(hash, { value: found.value, expiresAt: Math.min(now + this.options.ttlMs, found.validUntil) });
          else this.entries.delete(hash);
        }
        return valid ? found.value : null;
      })
      .finally(() => {
        if (this.lookups.get(hash) === lookup) this.lookups.delete(hash);
      });
    this.lookups.set(hash, lookup);
    return lookup;
  }
}
