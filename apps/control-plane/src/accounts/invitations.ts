import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { Prisma, type InvitationRow, type MembershipRow, type PrismaClient, type UserRow, type WorkspaceRow } from "@vigil/db";
import { ValidationError, emailField, parseOrThrow, userNameField, type Role } from "@vigil/domain";
import { newPasswordField } from "@vigil/domain/passwords";
import { hashPassword, verifyPassword } from "../auth/password";
import { Code, ConnectError } from "@connectrpc/connect";
import type { AttemptLimiter } from "../limits/attempt-limiter";
import type { SecondFactor } from "./second-factor";
import { tooManyAttempts } from "./sign-in";

const HOUR_MS = 3_600_000;

/** A link's token: 256 random bits. */
export const newLinkToken = () => randomBytes(32).toString("base64url");

export const tokenHashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** A mailed or printed link to the console's `page`, which sends `token` on to the API. */
export const appLink = (publicUrl: string, page: string, token: string) => `${publicUrl.replace(/\/+$/, "")}/app/${page}?token=${token}`;

/** Where an invitation's link leads: the console's page that accepts it. */
export const inviteUrl = (publicUrl: string, token: string) => appLink(publicUrl, "invite", token);

export interface NewInvitation {
  workspaceId: string;
  /** Null: whoever accepts gives their address (the first owner's invitation). */
  email: string | null;
  role: Role;
  invitedById: string | null;
  validHours: number;
}

const UNUSABLE = "is unknown, already used, withdrawn or expired";

const newAccount = z.object({
  name: userNameField(),
  password: newPasswordField(),
});

/**
 * Invitations: a link with 256 random bits that, once, makes whoever holds
 * it a member with a role. Only the token's SHA-256 is kept.
 */
export class Invitations {
  constructor(
    private readonly prisma: PrismaClient,
    /** Checks an existing account's second factor on acceptance; without it such an account cannot accept. */
    private readonly secondFactor?: SecondFactor,
    /** Counts wrong passwords and codes of an existing account, with sign-in's (else anyone who may invite could guess at any account's password). */
    private readonly attemptsByAccount?: AttemptLimiter,
    private readonly now: () => number = Date.now,
  ) {}

  async create(input: NewInvitation): Promise<{ invitation: InvitationRow; token: string }> {
    const token = newLinkToken();
    const invitation = await this.prisma.invitation.create({
      data: {
        workspaceId: input.workspaceId,
        email: input.email,
        role: input.role,
        tokenHash: tokenHashOf(token),
        invitedById: input.invitedById,
        expiresAt: new Date(this.now() + input.validHours * HOUR_MS),
      },
    });
    return { invitation, token };
  }

  /** The workspace's invitations that can still be accepted, oldest first. */
  pending(workspaceId: string): Promise<InvitationRow[]> {
    return this.prisma.invitation.findMany({
      where: { workspaceId, acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date(this.now()) } },
      orderBy: { createdAt: "asc" },
    });
  }

  /** Withdraws a pending invitation of the workspace; false when there is none by that id. */
  async revoke(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.invitation.updateMany({
      where: { id, workspaceId, acceptedAt: null, revokedAt: null },
      data: { revokedAt: new Date(this.now()) },
    });
    return count > 0;
  }

  /**
   * Accepts an invitation: creates the account (name and a new password), or
   * adds the membership to the existing account of that address (its current
   * password, and its second factor when it has one, prove the person). The invitation is used up in the same
   * transaction, so a link accepted twice at once makes one member.
   */
  async accept(input: { token: string; name: string; password: string; email: string; totp: string }): Promise<MembershipRow & { user: UserRow; workspace: WorkspaceRow }> {
    const now = new Date(this.now());
    const invitation = input.token ? await this.prisma.invitation.findUnique({ where: { tokenHash: tokenHashOf(input.token) } }) : null;
    if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= now) throw ValidationError.of("token", `the invitation ${UNUSABLE}`);
    const email = invitation.email ?? parseOrThrow(emailField(), input.email, "email");
    if (invitation.email && input.email && parseOrThrow(emailField(), input.email, "email") !== invitation.email) {
      throw ValidationError.of("email", "must be the address the invitation was sent to, or empty");
    }
    const existing = await this.prisma.user.findUnique({ where: { email } });
    let passwordHash: string | undefined;
    let name = existing?.name ?? "";
    if (existing) {
      const wait = (await this.attemptsByAccount?.reserve(email)) ?? 0;
      if (wait > 0) throw new ConnectError(tooManyAttempts(wait), Code.ResourceExhausted);
      if (!existing.passwordHash || !(await verifyPassword(input.password, existing.passwordHash))) {
        throw ValidationError.of("password", `must be the current password of the account of ${email}`);
      }
      // Accepting signs in, so it asks what sign-in asks.
      if (existing.totpSecret && !(input.totp && this.secondFactor && (await this.secondFactor.verify(existing, input.totp)))) {
        throw ValidationError.of("totp", `must be a current code of the second factor of the account of ${email}, or one of its recovery codes`);
      }
      await this.attemptsByAccount?.giveBack(email);
    } else {
      const account = parseOrThrow(newAccount, { name: input.name, password: input.password }, "");
      passwordHash = await hashPassword(account.password);
      name = account.name;
    }
    try {
      return await this.prisma.$transaction(async (tx) => {
        const used = await tx.invitation.updateMany({ where: { id: invitation.id, acceptedAt: null, revokedAt: null }, data: { acceptedAt: now } });
        if (used.count === 0) throw ValidationError.of("token", `the invitation ${UNUSABLE}`);
        // An invitation mailed to the address proves it; the first owner's names none.
        const emailVerifiedAt = invitation.email ? now : null;
        const user = existing
          ? existing.emailVerifiedAt || !emailVerifiedAt
            ? existing
            : await tx.user.update({ where: { id: existing.id }, data: { emailVerifiedAt } })
          : await tx.user.create({ data: { email, name, passwordHash: passwordHash!, emailVerifiedAt } });
        return tx.membership.create({ data: { workspaceId: invitation.workspaceId, userId: user.id, role: invitation.role }, include: { user: true, workspace: true } });
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        // The membership exists (or the account was made at the same moment): nothing was changed.
        throw ValidationError.of("email", `${email} is already a member of this workspace`);
      }
      throw error;
    }
  }
}
