import { createHash, randomInt } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import type { PrismaClient, UserRow } from "@vigil/db";
import { ACCOUNTS, isTotpCode } from "@vigil/domain";
import type { SecretBox } from "../notifications/secrets";

const ISSUER = "Vigil";
// Crockford's base32 without the letters that read like digits: a code is typed from paper.
const RECOVERY_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const RECOVERY_GROUP = 5;

const totpOf = (secret: string, email: string) =>
  new TOTP({ issuer: ISSUER, label: email, secret: Secret.fromBase32(secret), digits: ACCOUNTS.totpDigits, period: ACCOUNTS.totpPeriodSeconds });

/** A recovery code as it is compared: lower-case, without the dash and spaces it is shown or typed with. */
const recoveryHash = (code: string) => createHash("sha256").update(code.toLowerCase().replace(/[^0-9a-z]/g, "")).digest("hex");

const newRecoveryCode = () => {
  const chars = Array.from({ length: 2 * RECOVERY_GROUP }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("");
  return `${chars.slice(0, RECOVERY_GROUP)}-${chars.slice(RECOVERY_GROUP)}`;
};


/**
 * A person's second factor: TOTP (RFC 6238) and single-use recovery codes
 * (docs/accounts.md, "Second factor"). Secrets are sealed with the deployment
 * key; recovery codes (50 random bits each) are kept as SHA-256. A code is
 * accepted one step early or late, and only in a step later than the last
 * one a code was accepted in, so that a code seen over a shoulder cannot be
 * used again.
 */
export class SecondFactor {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly box: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  /** Makes a new pending secret (replacing a pending one); it is enabled by `confirm`. */
  async begin(user: UserRow): Promise<{ secret: string; otpauthUrl: string }> {
    const secret = new Secret({ size: 20 }).base32;
    await this.prisma.user.update({ where: { id: user.id }, data: { totpPendingSecret: this.box.seal(secret) } });
    return { secret, otpauthUrl: totpOf(secret, user.email).toString() };
  }

  /** Enables the pending secret when `code` was made with it; answers the new recovery codes, or null for a wrong code. */
  async confirm(user: UserRow, code: string): Promise<string[] | null> {
    if (!user.totpPendingSecret) return null;
    const step = this.stepOf(this.box.open(user.totpPendingSecret), user.email, code);
    if (step === null) return null;
    const enabled = await this.prisma.user.updateMany({
      where: { id: user.id, totpPendingSecret: user.totpPendingSecret },
      data: { totpSecret: user.totpPendingSecret, totpPendingSecret: null, totpLastStep: step },
    });
    return enabled.count === 1 ? this.replaceRecoveryCodes(user.id) : null;
  }

  async disable(userId: string): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.user.update({ where: { id: userId }, data: { totpSecret: null, totpPendingSecret: null, totpLastStep: null } }),
      this.prisma.recoveryCode.deleteMany({ where: { userId } }),
    ]);
  }

  /** Replaces every recovery code when `code` is a current TOTP code; null for a wrong or used one. */
  async regenerate(user: UserRow, code: string): Promise<string[] | null> {
    return (await this.useCode(user, code)) ? this.replaceRecoveryCodes(user.id) : null;
  }

  /** Whether `typed` (a TOTP code or an unused recovery code, which is then spent) proves the person's second factor. */
  async verify(user: UserRow, typed: string): Promise<boolean> {
    if (isTotpCode(typed)) return this.useCode(user, typed);
    const spent = await this.prisma.recoveryCode.updateMany({
      where: { userId: user.id, codeHash: recoveryHash(typed), usedAt: null },
      data: { usedAt: new Date(this.now()) },
    });
    return spent.count === 1;
  }

  /** Accepts a code of the enabled secret once: its step is claimed in one conditional write, so a code sent twice at once passes once. */
  private async useCode(user: UserRow, code: string): Promise<boolean> {
    if (!user.totpSecret) return false;
    const step = this.stepOf(this.box.open(user.totpSecret), user.email, code);
    if (step === null) return false;
    const claimed = await this.prisma.user.updateMany({
      where: { id: user.id, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    return claimed.count === 1;
  }

  /** The time step `code` belongs to, within the accepted window; null when it is no code of `secret`. */
  private stepOf(secret: string, email: string, code: string): number | null {
    const timestamp = this.now();
    const delta = totpOf(secret, email).validate({ token: code.replace(/\s+/g, ""), timestamp, window: ACCOUNTS.totpWindowSteps });
    return delta === null ? null : TOTP.counter({ period: ACCOUNTS.totpPeriodSeconds, timestamp }) + delta;
  }

  private async replaceRecoveryCodes(userId: string): Promise<string[]> {
    const codes = Array.from({ length: ACCOUNTS.recoveryCodes }, newRecoveryCode);
    await this.prisma.$transaction([
      this.prisma.recoveryCode.deleteMany({ where: { userId } }),
      this.prisma.recoveryCode.createMany({ data: codes.map((code) => ({ userId, codeHash: recoveryHash(code) })) }),
    ]);
    return codes;
  }
}
