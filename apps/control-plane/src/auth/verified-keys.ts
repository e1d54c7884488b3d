import type { PrismaClient } from "@vigil/db";
import { API_KEYS } from "@vigil/domain";
import type { KeyActor as Actor } from "./actor";
import { actorOf, hashApiKey } from "./api-keys";
import { VerifiedCopies, type CopyOptions } from "./verified-copies";

interface VerifiedKey {
  actor: Actor;
  /** The key's last use as written in the database (0: never), or by this control plane since. */
  lastUsedAt: number;
}

const TOUCH_MS = API_KEYS.lastUsedTouchSeconds * 1000;

/** The actors behind the API keys callers present, from short-lived copies (verified-copies.ts). */
export class VerifiedKeys {
  private readonly copies: VerifiedCopies<VerifiedKey>;

  constructor(
    private readonly prisma: PrismaClient,
    options: Partial<CopyOptions> = {},
  ) {
    this.copies = new VerifiedCopies(async (secretHash, previous) => {
      const key = await prisma.apiKey.findUnique({ where: { secretHash }, include: { workspace: true } });
      if (!key || key.revokedAt) return null;
      const lastUsedAt = Math.max(key.lastUsedAt?.getTime() ?? 0, previous?.lastUsedAt ?? 0);
      return { value: { actor: actorOf(key), lastUsedAt }, validUntil: key.expiresAt?.getTime() ?? Infinity };
    }, options);
  }

  /** The actor behind a presented key, or null for a missing, unknown, revoked or expired key. */
  async actorFor(presented: string | null | undefined): Promise<Actor | null> {
    if (!presented) return null;
    const verified = await this.copies.get(hashApiKey(presented));
    if (!verified) return null;
    await this.touch(verified, this.copies.options.now());
    return verified.actor;
  }

  /**
   * Writes a key's last use when the one known is a minute old or more, so a
   * busy key costs one write a minute, not one a call. The copy remembers the
   * write at once, so calls of this control plane do not repeat it; the
   * condition on the row keeps the other control planes (whose copies learn
   * of it at their next lookup) from writing it again within the minute.
   */
  private async touch(verified: VerifiedKey, now: number): Promise<void> {
    if (now - verified.lastUsedAt < TOUCH_MS) return;
    const known = verified.lastUsedAt;
    verified.lastUsedAt = now;
    try {
      await this.prisma.apiKey.updateMany({
        where: { id: verified.actor.keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: new Date(now - TOUCH_MS) } }] },
        data: { lastUsedAt: new Date(now) },
      });
    } catch {
      // A key verified from its copy keeps working while the database is away; its last use is written by a later call.
      verified.lastUsedAt = known;
    }
  }

  /** Stops trusting a key (revoked here or on another control plane). */
  forget(keyId: string): void {
    this.copies.forget((verified) => verified.actor.keyId === keyId);
  }

  /** Stops trusting every key, when revocations may have been missed (Redis was away). */
  forgetAll(): void {
    this.copies.forgetAll();
  }
}
