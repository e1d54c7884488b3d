import { z } from "zod";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient, UserRow } from "@vigil/db";
import { ValidationError, parseOrThrow, userNameField } from "@vigil/domain";
import { newPasswordField } from "@vigil/domain/passwords";
import type { Logger } from "@vigil/logging";
import { AccountService, ProfileSchema, SessionSchema, WorkspaceSchema } from "@vigil/proto/account";
import type { Person } from "../auth/actor";
import { personOf } from "../auth/context";
import { hashPassword, verifyPassword } from "../auth/password";
import { recordAudit } from "../audit/record";
import type { AuditStore } from "../audit/store";
import { notFound } from "../errors";
import type { AttemptLimiter } from "../limits/attempt-limiter";
import { tooManyAttempts } from "./sign-in";
import type { UserSessions } from "./sessions";

export interface AccountDeps {
  prisma: PrismaClient;
  sessions: UserSessions;
  /** The per-account limiter of sign-in attempts: a wrong current password counts as one. */
  attemptsByAccount: AttemptLimiter;
  audit: AuditStore;
  logger: Logger;
}

const profileOf = (user: UserRow) => create(ProfileSchema, { id: user.id, email: user.email, name: user.name, createdAt: timestampFromDate(user.createdAt) });

const profileBody = z.object({ name: userNameField() });
const newPasswordBody = z.object({ new_password: newPasswordField() });

/**
 * The signed-in person's own account (docs/accounts.md, "Your account"). Its
 * mutations are recorded in the audit log of each of the person's workspaces,
 * by hand rather than by the audit interceptor, which records one workspace
 * and the request's fields: a password is never written, not even as a
 * fingerprint (docs/audit-log.md).
 */
export function accountService(deps: AccountDeps): ServiceImpl<typeof AccountService> {
  const { prisma, sessions } = deps;

  const userOf = async (person: Person) => {
    const user = await prisma.user.findUnique({ where: { id: person.userId } });
    // The session was read a moment ago; the person was deleted since.
    if (!user) throw new ConnectError("the session has ended; sign in again", Code.Unauthenticated);
    return user;
  };

  const audited = async (person: Person, ctx: HandlerContext, target: { kind: string; id: string }, changes: JsonObject) => {
    const memberships = await prisma.membership.findMany({ where: { userId: person.userId }, select: { workspaceId: true } });
    const method = `${AccountService.typeName}/${ctx.method.name}`;
    const actor = { type: "user" as const, userId: person.userId, email: person.email };
    await Promise.all(
      memberships.map(({ workspaceId }) =>
        recordAudit(deps.audit, { workspaceId, actor, method, targetKind: target.kind, targetId: target.id, changes }, deps.logger),
      ),
    );
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
      const wait = await deps.attemptsByAccount.reserve(user.email);
      if (wait > 0) throw new ConnectError(tooManyAttempts(wait), Code.ResourceExhausted);
      if (!user.passwordHash || !(await verifyPassword(req.currentPassword, user.passwordHash))) {
        deps.logger.info({ userId: user.id }, "password change refused: wrong current password");
        throw ValidationError.of("current_password", "is not your current password");
      }
      await prisma.user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(new_password) } });
      // Every other browser signed in as the person may be someone who learnt the old password.
      await sessions.endAllBut(user.id, person.sessionId);
      await deps.attemptsByAccount.giveBack(user.email);
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
  };
}
