import type { PrismaClient, UserRow } from "@vigil/db";
import { ACCOUNTS, ValidationError } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import type { ProviderSettings } from "@vigil/notifications";
import type { AttemptLimiter } from "../limits/attempt-limiter";
import { sendLinkMail } from "./account-mail";
import { appLink, newLinkToken, tokenHashOf } from "./invitations";

const MINUTE_MS = 60_000;

/** What a mailed link does, and for how long it works (ACCOUNTS). */
const PURPOSES = {
  verify_email: { page: "verify-email", minutes: ACCOUNTS.emailVerificationHours * 60 },
  password_reset: { page: "reset-password", minutes: ACCOUNTS.passwordResetMinutes },
} as const;
export type LinkPurpose = keyof typeof PURPOSES;

const UNUSABLE = "the link is unknown, already used or expired";

/** The mail limit of an address was reached: nothing was mailed. */
export class TooManyMails extends Error {
  constructor(readonly waitSeconds: number) {
    super(`too many mails to this address this hour; try again in ${waitSeconds} seconds`);
  }
}

/**
 * Single-use links mailed to a person's address, which prove that they read
 * its mail (docs/accounts.md, "Email verification", "Password reset"): 256
 * random bits in the link, their SHA-256 in the database, expiring.
 */
export class AccountLinks {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly settings: ProviderSettings,
    /** Mails per address per hour, shared with invitations (mailsByAddress). */
    private readonly mailsByAddress: AttemptLimiter,
    private readonly now: () => number = Date.now,
  ) {}

  get canMail(): boolean {
    return !!this.settings.smtpUrl;
  }

  /** Mails a new link of `purpose` to the person; throws TooManyMails past the address's hourly limit. */
  async mail(user: Pick<UserRow, "id" | "email">, purpose: LinkPurpose): Promise<void> {
    const wait = await this.mailsByAddress.reserve(user.email);
    if (wait > 0) throw new TooManyMails(wait);
    const token = newLinkToken();
    const { page, minutes } = PURPOSES[purpose];
    await this.prisma.accountToken.create({
      data: { userId: user.id, purpose, tokenHash: tokenHashOf(token), expiresAt: new Date(this.now() + minutes * MINUTE_MS) },
    });
    const link = appLink(this.settings.publicUrl, page, token);
    await sendLinkMail(
      this.settings,
      purpose === "verify_email"
        ? { to: user.email, subject: "Confirm your email address for Vigil", link, linkText: "Confirm your email address", note: `The link works once, for ${ACCOUNTS.emailVerificationHours} hours.` }
        : {
            to: user.email,
            subject: "Reset your Vigil password",
            link,
            linkText: "Choose a new password",
            note: `The link works once, for ${minutes} minutes. If you did not ask for it, ignore this mail: your password is unchanged.`,
          },
    );
  }

  /**
   * Spends a link of `purpose` and marks the address verified (the link
   * proved it), with `also` in the same transaction; answers the person. A
   * link used twice at once works once. Spending a password-reset link spends
   * every other one of the person.
   */
  async use(token: unknown, purpose: LinkPurpose, also: (tx: PrismaClient, userId: string) => Promise<unknown> = async () => {}): Promise<UserRow> {
    const now = new Date(this.now());
    const row = typeof token === "string" && token ? await this.prisma.accountToken.findUnique({ where: { tokenHash: tokenHashOf(token) } }) : null;
    if (!row || row.purpose !== purpose || row.usedAt || row.expiresAt <= now) throw ValidationError.of("token", UNUSABLE);
    return this.prisma.$transaction(async (tx) => {
      const spent = await tx.accountToken.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: now } });
      if (spent.count === 0) throw ValidationError.of("token", UNUSABLE);
      if (purpose === "password_reset") await tx.accountToken.updateMany({ where: { userId: row.userId, purpose, usedAt: null }, data: { usedAt: now } });
      await also(tx as PrismaClient, row.userId);
      const user = await tx.user.findUniqueOrThrow({ where: { id: row.userId } });
      return user.emailVerifiedAt ? user : tx.user.update({ where: { id: row.userId }, data: { emailVerifiedAt: now } });
    });
  }
}

/** Mails a verification link after an event that must not fail for it (the first owner's sign-up); a failure is logged. */
export async function mailVerificationQuietly(links: AccountLinks, user: Pick<UserRow, "id" | "email">, logger: Logger): Promise<void> {
  if (!links.canMail) return;
  await links.mail(user, "verify_email").catch((error: unknown) => logger.warn({ err: error, userId: user.id }, "verification mail not sent"));
}
