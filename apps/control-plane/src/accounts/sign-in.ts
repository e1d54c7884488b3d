import { z } from "zod";
import type { JsonObject } from "@bufbuild/protobuf";
import type { PrismaClient } from "@vigil/db";
import { ACCOUNTS, LIMITS, normalizeEmail, parseOrThrow } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import { nobodysPasswordHash, verifyPassword } from "../auth/password";
import { recordForPerson } from "../audit/person";
import type { AuditStore } from "../audit/store";
import { fromOwnOrigin, nodeHeaders } from "../auth/callers";
import { HttpError, sendJson, type Request, type Response } from "../http/json";
import { readJsonBody } from "../http/body";
import { attemptLimiter, type AttemptLimiter } from "../limits/attempt-limiter";
import type { SharedRedis } from "../limits/shared-rate-limiter";
import { clientAddress } from "../limits/request-rates";
import type { SecondFactor } from "./second-factor";
import { sessionTokenOf, type UserSessions } from "./sessions";

export interface SignInDeps {
  prisma: PrismaClient;
  sessions: UserSessions;
  /** Sign-in attempts per client address, and per account (ACCOUNTS). */
  attemptsByAddress: AttemptLimiter;
  attemptsByAccount: AttemptLimiter;
  /** PUBLIC_URL's origin, and whether it is https (the cookie is Secure then). */
  ownOrigin: string;
  isHttps: (req: Request) => boolean;
  secondFactor: SecondFactor;
  audit: AuditStore;
  logger: Logger;
}

/** Attempts at a person's password, counted per account across every control plane (in Redis): sign-ins and password changes alike. */
export const attemptsByAccount = (redis: SharedRedis) =>
  attemptLimiter(redis, "sign-in-account", { points: ACCOUNTS.signInAttemptsPerAccount, seconds: ACCOUNTS.signInWindowSeconds });

export type Route = (method: "POST", path: string, handler: (req: Request, res: Response) => Promise<void>) => void;

const signInBody = z.object({
  email: z.string({ error: "must be a string" }).max(LIMITS.emailMaxChars, `must be at most ${LIMITS.emailMaxChars} characters`),
  password: z.string({ error: "must be a string" }).max(ACCOUNTS.passwordMaxChars, `must be at most ${ACCOUNTS.passwordMaxChars} characters`),
  /** A TOTP code or a recovery code, for a person with a second factor. */
  totp: z.string({ error: "must be a string" }).max(100, "must be at most 100 characters").optional(),
});

const SIGN_IN = "POST /v1/auth/sign-in";

const WRONG = "wrong email or password";

export const refuseCrossSite = (req: Request, ownOrigin: string) => {
  if (!fromOwnOrigin(nodeHeaders(req.headers), ownOrigin)) throw new HttpError("permission_denied", "this must be sent from the service's own origin");
};

/** The answer once an address or account has used its attempts at a password (a wrong current password in a change counts too). */
export const tooManyAttempts = (seconds: number) => `too many sign-in attempts; try again in ${seconds} seconds`;

/** The 429 of a sign-in attempt over its limit. */
export const tooMany = (seconds: number) => new HttpError("resource_exhausted", tooManyAttempts(seconds), { "retry-after": String(seconds) });

/**
 * `POST /v1/auth/sign-in` and `POST /v1/auth/sign-out` (docs/accounts.md).
 * A wrong email and a wrong password are answered alike, after the same
 * password hashing, so that the answer does not tell which accounts exist.
 * A person with a second factor is answered `totp_required` for the right
 * password without a code, and like a wrong password for a wrong code.
 * Sign-ins and failed sign-ins of known accounts go to the audit log of each
 * of the person's workspaces; of unknown emails only the client address is
 * logged (the email typed may be someone's password typed in the wrong box).
 */
export function registerSignInRoutes(route: Route, deps: SignInDeps): void {
  const { prisma, sessions, logger } = deps;

  route("POST", "/v1/auth/sign-in", async (req, res) => {
    refuseCrossSite(req, deps.ownOrigin);
    const body = parseOrThrow(signInBody, await readJsonBody(req), "");
    const email = normalizeEmail(body.email);
    // Counted before the password is checked, so that attempts sent at once cannot all pass first.
    const address = clientAddress(req);
    const byAddress = await deps.attemptsByAddress.reserve(address);
    if (byAddress > 0) throw tooMany(byAddress);
    const byAccount = await deps.attemptsByAccount.reserve(email);
    if (byAccount > 0) throw tooMany(byAccount);

    const user = await prisma.user.findUnique({ where: { email }, include: { memberships: { include: { workspace: true }, orderBy: { createdAt: "asc" } } } });
    const matches = await verifyPassword(body.password, user?.passwordHash ?? (await nobodysPasswordHash()));
    const audited = (user: { id: string; email: string }, changes: JsonObject) =>
      recordForPerson(deps, { person: { userId: user.id, email: user.email }, method: SIGN_IN, targetKind: "User", targetId: user.id, changes });
    // Written after the answer, so that its time does not tell a known account's refusal from an unknown email's.
    const auditedFailure = (user: { id: string; email: string }, reason: string) =>
      void audited(user, { succeeded: false, reason, address }).catch((error: unknown) => logger.error({ err: error, userId: user.id }, "failed sign-in not audited"));
    if (!user || !user.passwordHash || !matches) {
      logger.info({ address, known: !!user }, "sign-in refused: wrong email or password");
      if (user) auditedFailure(user, "wrong password");
      throw new HttpError("unauthenticated", WRONG);
    }
    if (user.totpSecret) {
      if (!body.totp) throw new HttpError("totp_required", "this account has a second factor: send its code (or a recovery code) as totp");
      if (!(await deps.secondFactor.verify(user, body.totp))) {
        logger.info({ address, userId: user.id }, "sign-in refused: wrong second factor");
        auditedFailure(user, "wrong second factor");
        throw new HttpError("unauthenticated", WRONG);
      }
    }
    await Promise.all([deps.attemptsByAddress.giveBack(address), deps.attemptsByAccount.giveBack(email)]);
    const userAgent = nodeHeaders(req.headers)("user-agent") ?? "";
    const session = await sessions.open(user.id, { userAgent, address });
    logger.info({ userId: user.id }, "signed in");
    await audited(user, { succeeded: true, address });
    sendJson(
      res,
      200,
      {
        user: { id: user.id, email: user.email, name: user.name },
        workspaces: user.memberships.map((m) => ({ slug: m.workspace.slug, name: m.workspace.name, role: m.role })),
        expiresAt: session.expiresAt.toISOString(),
      },
      { "set-cookie": sessions.cookie(session.token, session.expiresAt, deps.isHttps(req)), "cache-control": "no-store" },
    );
  });

  route("POST", "/v1/auth/sign-out", async (req, res) => {
    refuseCrossSite(req, deps.ownOrigin);
    const token = sessionTokenOf(nodeHeaders(req.headers)("cookie"));
    if (token) await sessions.endByToken(token);
    sendJson(res, 200, { signedOut: true }, { "set-cookie": sessions.clearedCookie(deps.isHttps(req)), "cache-control": "no-store" });
  });
}
