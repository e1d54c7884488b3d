import { z } from "zod";
import type { PrismaClient } from "@vigil/db";
import { emailField, parseOrThrow } from "@vigil/domain";
import { newPasswordField } from "@vigil/domain/passwords";
import type { Logger } from "@vigil/logging";
import { hashPassword } from "../auth/password";
import { recordForPerson } from "../audit/person";
import type { AuditStore } from "../audit/store";
import { readJsonBody } from "../http/body";
import { HttpError, sendJson } from "../http/json";
import type { AttemptLimiter } from "../limits/attempt-limiter";
import { clientAddress } from "../limits/request-rates";
import type { AccountLinks } from "./account-links";
import type { UserSessions } from "./sessions";
import { refuseCrossSite, type Route, tooMany } from "./sign-in";

export interface AccountLinkDeps {
  prisma: PrismaClient;
  links: AccountLinks;
  sessions: UserSessions;
  /** Password-reset requests per client address (ACCOUNTS.passwordResetsPerAddressPerHour). */
  resetsByAddress: AttemptLimiter;
  audit: AuditStore;
  ownOrigin: string;
  logger: Logger;
}

const tokenBody = z.object({ token: z.string({ error: "must be a string" }).max(100, "must be at most 100 characters") });
const resetBody = z.object({ email: emailField() });
const confirmBody = tokenBody.extend({ newPassword: newPasswordField() });

const RESET_ASKED = "if an account has this address, a link to reset its password was mailed to it";

/**
 * `POST /v1/auth/verify-email`, `/v1/auth/password-reset` and
 * `/v1/auth/password-reset/confirm` (docs/accounts.md): the mailed link's
 * token is the credential, so they need no session; like sign-in they refuse
 * other sites' pages.
 */
export function registerAccountLinkRoutes(route: Route, deps: AccountLinkDeps): void {
  const { links, logger } = deps;

  route("POST", "/v1/auth/verify-email", async (req, res) => {
    refuseCrossSite(req, deps.ownOrigin);
    const { token } = parseOrThrow(tokenBody, await readJsonBody(req), "");
    const user = await links.use(token, "verify_email");
    logger.info({ userId: user.id }, "email address verified");
    sendJson(res, 200, { verified: true }, { "cache-control": "no-store" });
  });

  route("POST", "/v1/auth/password-reset", async (req, res) => {
    refuseCrossSite(req, deps.ownOrigin);
    if (!links.canMail) throw new HttpError("unavailable", "password resets are mailed and SMTP_URL is not set");
    const { email } = parseOrThrow(resetBody, await readJsonBody(req), "");
    const address = clientAddress(req);
    const wait = await deps.resetsByAddress.reserve(address);
    if (wait > 0) throw tooMany(wait);
    const user = await deps.prisma.user.findUnique({ where: { email }, select: { id: true, email: true } });
    // Mailed after the answer, so that its time does not tell whether the account exists.
    if (user) {
      void links.mail(user, "password_reset").then(
        () => logger.info({ userId: user.id }, "password reset link mailed"),
        (error: unknown) => logger.warn({ err: error, userId: user.id }, "password reset link not mailed"),
      );
    }
    logger.info({ address, known: !!user }, "password reset asked");
    sendJson(res, 202, { message: RESET_ASKED }, { "cache-control": "no-store" });
  });

  route("POST", "/v1/auth/password-reset/confirm", async (req, res) => {
    refuseCrossSite(req, deps.ownOrigin);
    const body = parseOrThrow(confirmBody, await readJsonBody(req), "");
    const passwordHash = await hashPassword(body.newPassword);
    const user = await links.use(body.token, "password_reset", (tx, userId) => tx.user.update({ where: { id: userId }, data: { passwordHash } }));
    // Whoever knew the old password may be signed in anywhere; sessions are read from the database on each call.
    await deps.sessions.endAllBut(user.id, undefined);
    logger.info({ userId: user.id }, "password reset; every session ended");
    const event = { person: { userId: user.id, email: user.email }, method: "POST /v1/auth/password-reset/confirm", targetKind: "User", targetId: user.id, changes: {} };
    await recordForPerson(deps, event);
    sendJson(res, 200, { reset: true }, { "cache-control": "no-store" });
  });
}
