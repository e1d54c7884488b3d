import { z } from "zod";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient, UserRow } from "@vigil/db";
import { ValidationError, parseOrThrow, totpCodeField, userNameField } from "@vigil/domain";
import { newPasswordField } from "@vigil/domain/passwords";
import type { Logger } from "@vigil/logging";
import { AccountService, ProfileSchema, SessionSchema, WorkspaceSchema } from "@vigil/proto/account";
import type { Person } from "../auth/actor";
import { personOf } from "../auth/context";
import { hashPassword, verifyPassword } from "../auth/password";
import { recordForPerson } from "../audit/person";
import type { AuditStore } from "../audit/store";
import { notFound } from "../errors";
import type { AttemptLimiter } from "../limits/attempt-limiter";
import { tooManyAttempts } from "./sign-in";
import type { UserSessions } from "./sessions";
import { TooManyMails, type AccountLinks } from "./account-links";
import type { SecondFactor } from "./second-factor";

export interface AccountDeps {
  prisma: PrismaClient;
  sessions: UserSessions;
  /** The per-account limiter of sign-in attempts: a wrong current password or second-factor code counts as one. */
  attemptsByAccount: AttemptLimiter;
  audit: AuditStore;
  secondFactor: SecondFactor;
  links: AccountLinks;
  logger: Logger;
}

const profileOf = (user: UserRow) =>
  create(ProfileSchema, {
    id: user.id,
    email: user.email,
    name: user.name,
    createdAt: timestampFromDate(user.createdAt),
    totpEnabled: !!user.totpSecret,
    emailVerified: !!user.emailVerifiedAt,
  });

const profileBody = z.object({ name: userNameField() });
const newPasswordBody = z.object({ new_password: newPasswordField() });
const codeBody = z.object({ code: totpCodeField() });
const WRONG_CODE = "is not a current code of your authenticator app (or was used already)";

const passwordMatches = async (user: UserRow, password: string) => !!user.passwordHash && (await verifyPassword(password, user.passwordHash));

/**
 * The signed-in person's own account (docs/accounts.md, "Your account"). Its
 * mutations are recorded in the audit log of each of the person's workspaces,
 * by hand rather than by the audit interceptor, which records one workspace
 * and the request's fields: a password is never written, not even as a
 * fingerprint (docs/audit-log.md).
 */
export function accountService(deps: AccountDeps): ServiceImpl<typeof AccountService> {
  const { prisma, sessions, secondFactor } = deps;

  const userOf = async (person: Person) => {
    const user = await prisma.user.findUnique({ where: { id: person.userId } });
    // The session was read a moment ago; the person was deleted since.
    if (!user) throw new ConnectError("the session has ended; sign in again", Code.Unauthenticated);
    return user;
  };

  const audited = (person: Person, ctx: HandlerContext, target: { kind: string; id: string }, changes: JsonObject) =>
    recordForPerson(deps, { person, method: `${AccountService.typeName}/${ctx.method.name}`, targetKind: target.kind, targetId: target.id, changes });

  /**
   * Runs a check of something guessable (a password, a code) under the
   * per-account attempt limit shared with sign-in; a failure names `field`.
   */
  const attempted = async <T>(user: UserRow, field: string, rule: string, check: () => Promise<T | null | false>): Promise<T> => {
    const wait = await deps.attemptsByAccount.reserve(user.email);
    if (wait > 0) throw new ConnectError(tooManyAttempts(wait), Code.ResourceExhausted);
    const passed = await check();
    if (passed === null || passed === false) {
      deps.logger.info({ userId: user.id, field }, "account change refused: wrong credential");
      throw ValidationError.of(field, rule);
    }
    await deps.attemptsByAccount.giveBack(user.email);
    return passed;
  };

  return {
    async getProfile(_req, ctx) {
      return { profile: profileOf(await userOf(personOf(ctx))) };
    },

    async updateProfile(req, ctx) {
      const person = personOf(ctx);
      const { name } = parseOrThrow(profileBody, { name: req.name }, "");
      const user = await prisma.user.update({ where: { id: person.userId }, data: { name } });
      await audited(person, ctx, { kind: "User", id: user.id }, { name });
      return { profile: profileOf(user) };
    },

    async changePassword(req, ctx) {
      const person = personOf(ctx);
      const { new_password } = parseOrThrow(newPasswordBody, { new_password: req.newPassword }, "");
      const user = await userOf(person);
      await attempted(user, "current_password", "is not your current password", () => passwordMatches(user, req.currentPassword));
      await prisma.user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(new_password) } });
      // Every other browser signed in as the person may be someone who learnt the old password.
      await sessions.endAllBut(user.id, person.sessionId);
      deps.logger.info({ userId: user.id }, "password changed; other sessions ended");
      await audited(person, ctx, { kind: "User", id: user.id }, {});
      return {};
    },

    async listSessions(_req, ctx) {
      const person = personOf(ctx);
      const rows = await sessions.list(person.userId);
      return {
        sessions: rows.map((s) =>
          create(SessionSchema, {
            id: s.id,
            createdAt: timestampFromDate(s.createdAt),
            lastSeenAt: timestampFromDate(s.lastSeenAt),
            expiresAt: timestampFromDate(s.expiresAt),
            userAgent: s.userAgent,
            address: s.address,
            current: s.id === person.sessionId,
          }),
        ),
      };
    },

    async endSession(req, ctx) {
      const person = personOf(ctx);
      // Another person's session is answered as one that does not exist.
      if (!(await sessions.end(person.userId, req.id))) throw notFound(`session ${req.id}`);
      await audited(person, ctx, { kind: "UserSession", id: req.id }, { id: req.id });
      return {};
    },

    async listWorkspaces(_req, ctx) {
      const memberships = await prisma.membership.findMany({
        where: { userId: personOf(ctx).userId },
        include: { workspace: true },
        orderBy: { createdAt: "asc" },
      });
      return { workspaces: memberships.map((m) => create(WorkspaceSchema, { slug: m.workspace.slug, name: m.workspace.name, role: m.role })) };
    },

    async beginTotpEnrolment(_req, ctx) {
      const user = await userOf(personOf(ctx));
      if (user.totpSecret) throw new ConnectError("the second factor is already enabled: disable it first to enrol another", Code.FailedPrecondition);
      return secondFactor.begin(user);
    },

    async confirmTotpEnrolment(req, ctx) {
      const person = personOf(ctx);
      const { code } = parseOrThrow(codeBody, { code: req.code }, "");
      const user = await userOf(person);
      if (!user.totpPendingSecret) throw new ConnectError("no enrolment is pending: call BeginTotpEnrolment first", Code.FailedPrecondition);
      const recoveryCodes = await attempted(user, "code", WRONG_CODE, () => secondFactor.confirm(user, code));
      deps.logger.info({ userId: user.id }, "second factor enabled");
      await audited(person, ctx, { kind: "User", id: user.id }, { totpEnabled: true });
      return { recoveryCodes };
    },

    async disableTotp(req, ctx) {
      const person = personOf(ctx);
      const user = await userOf(person);
      await attempted(user, "password", "is not your current password", () => passwordMatches(user, req.password));
      await secondFactor.disable(user.id);
      deps.logger.info({ userId: user.id }, "second factor disabled");
      await audited(person, ctx, { kind: "User", id: user.id }, { totpEnabled: false });
      return {};
    },

    async regenerateRecoveryCodes(req, ctx) {
      const person = personOf(ctx);
      const { code } = parseOrThrow(codeBody, { code: req.code }, "");
      const user = await userOf(person);
      if (!user.totpSecret) throw new ConnectError("the second factor is not enabled", Code.FailedPrecondition);
      const recoveryCodes = await attempted(user, "code", WRONG_CODE, () => secondFactor.regenerate(user, code));
      await audited(person, ctx, { kind: "User", id: user.id }, {});
      return { recoveryCodes };
    },

    async sendVerificationEmail(_req, ctx) {
      const user = await userOf(personOf(ctx));
      if (user.emailVerifiedAt) throw new ConnectError("the email address is already verified", Code.FailedPrecondition);
      if (!deps.links.canMail) throw new ConnectError("verification links are mailed and SMTP_URL is not set", Code.FailedPrecondition);
      try {
        await deps.links.mail(user, "verify_email");
      } catch (error) {
        if (error instanceof TooManyMails) throw new ConnectError(error.message, Code.ResourceExhausted, { "retry-after": String(error.waitSeconds) });
        deps.logger.warn({ err: error, userId: user.id }, "verification mail not sent");
        throw new ConnectError("the verification mail could not be sent", Code.Unavailable);
      }
      return {};
    },
  };
}
