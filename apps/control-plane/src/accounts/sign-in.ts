import { z } from "zod";
import type { PrismaClient } from "@vigil/db";
import { ACCOUNTS, LIMITS, normalizeEmail, parseOrThrow } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import { nobodysPasswordHash, verifyPassword } from "../auth/password";
import { fromOwnOrigin, nodeHeaders } from "../auth/callers";
import { HttpError, sendJson, type Request, type Response } from "../http/json";
import { readJsonBody } from "../http/body";
import { attemptLimiter, type AttemptLimiter } from "../limits/attempt-limiter";
import type { SharedRedis } from "../limits/shared-rate-limiter";
import { clientAddress } from "../limits/request-rates";
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
  logger: Logger;
}

/** Attempts at a person's password, counted per account across every control plane (in Redis): sign-ins and password changes alike. */
export const attemptsByAccount = (redis: SharedRedis) =>
  attemptLimiter(redis, "sign-in-account", { points: ACCOUNTS.signInAttemptsPerAccount, seconds: ACCOUNTS.signInWindowSeconds });

type Route = (method: "POST", path: string, handler: (req: Request, res: Response) => Promise<void>) => void;

const signInBody = z.object({
  email: z.string({ error: "must be a string" }).max(LIMITS.emailMaxChars, `must be at most ${LIMITS.emailMaxChars} characters`),
  password: z.string({ error: "must be a string" }).max(ACCOUNTS.passwordMaxChars, `must be at most ${ACCOUNTS.passwordMaxChars} characters`),
});

const WRONG = "wrong email or password";

const refuseCrossSite = (req: Request, ownOrigin: string) => {
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
    if (!user || !user.passwordHash || !matches) {
      logger.info({ address, known: !!user }, "sign-in refused: wrong email or password");
      throw new HttpError("unauthenticated", WRONG);
    }
    await Promise.all([deps.attemptsByAddress.giveBack(address), deps.attemptsByAccount.giveBack(email)]);
    const userAgent = nodeHeaders(req.headers)("user-agent") ?? "";
    const session = await sessions.open(user.id, { userAgent, address });
    logger.info({ userId: user.id }, "signed in");
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
