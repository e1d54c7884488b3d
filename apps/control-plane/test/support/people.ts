import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { DescService } from "@bufbuild/protobuf";
import { Secret, TOTP } from "otpauth";
import { ACCOUNTS, SESSION_COOKIE, WORKSPACE_HEADER, isRole, type Role } from "@vigil/domain";
import { AccountService } from "@vigil/proto/account";
import { hashPassword } from "../../src/auth/password";
import type { PrismaClient } from "@vigil/db";
import type { TestApi } from "./api";

let people = 0;

/** A password that keeps the rules (12 characters or more, not a common one). */
export const GOOD_PASSWORD = "plum-harbour-lantern-42";

/** POST /v1/auth/sign-in; the session token from its Set-Cookie, or the refusal. */
export async function signIn(baseUrl: string, email: string, password: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${baseUrl}/v1/auth/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email, password }),
  });
  const cookie = res.headers.get("set-cookie") ?? "";
  const token = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(cookie)?.[1] ?? "";
  return { res, token, cookie, body: (await res.json()) as Record<string, unknown> };
}

/** A client of `service` that sends a session cookie (and names a workspace) instead of a key. */
export function sessionClient<S extends DescService>(service: S, baseUrl: string, token: string, options: { workspace?: string; headers?: Record<string, string> } = {}): Client<S> {
  const withSession: Interceptor = (next) => (req) => {
    req.header.set("cookie", `${SESSION_COOKIE}=${token}`);
    if (options.workspace) req.header.set(WORKSPACE_HEADER, options.workspace);
    for (const [name, value] of Object.entries(options.headers ?? {})) req.header.set(name, value);
    return next(req);
  };
  return createClient(service, createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: [withSession] }));
}

/** A person made through an invitation of `workspace` with `role`, signed in: their email and session token. */
export async function personWithRole(api: TestApi, workspace: string, role: Role): Promise<{ email: string; token: string; userId: string }> {
  const email = `person-${++people}-${role}@example.com`;
  const { token: invitation } = await api.admin.inviteUser({ workspaceSlug: workspace, email, role });
  const accepted = await fetch(`${api.baseUrl}/account.v1.MemberService/AcceptInvitation`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: invitation, name: `Person ${people}`, password: GOOD_PASSWORD }),
  });
  if (!accepted.ok) throw new Error(`accepting the invitation failed: ${accepted.status} ${await accepted.text()}`);
  const { member } = (await accepted.json()) as { member: { id: string } };
  const { token } = await signIn(api.baseUrl, email, GOOD_PASSWORD);
  return { email, token, userId: member.id };
}

/** A person with a password, and a role in each workspace of `roles` (slug to role). */
export async function createPerson(api: TestApi, roles: Record<string, string> = {}, password = "correct horse battery staple") {
  const email = `person-${++people}@example.com`;
  const user = await api.db.prisma.user.create({ data: { email, name: `Person ${people}`, passwordHash: await hashPassword(password) } });
  for (const [slug, role] of Object.entries(roles)) {
    if (!isRole(role)) throw new Error(`no role ${role}`);
    const workspace = await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug } });
    await api.db.prisma.membership.create({ data: { workspaceId: workspace.id, userId: user.id, role } });
  }
  return { id: user.id, email, password };
}

/** Signs in at `baseUrl`: the `vigil_session=…` cookie to send back; throws when refused. */
export async function sessionCookie(baseUrl: string, email: string, password: string, userAgent = "people-test"): Promise<string> {
  const { res, token, body } = await signIn(baseUrl, email, password, { "user-agent": userAgent });
  if (res.status !== 200 || !token) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(body)}`);
  return `${SESSION_COOKIE}=${token}`;
}

/** Sends `cookie` with every call. */
export const withCookie =
  (cookie: string): Interceptor =>
  (next) =>
  (req) => {
    req.header.set("cookie", cookie);
    return next(req);
  };

/** AccountService at `baseUrl`, called with the session `cookie`. */
export const accountClient = (baseUrl: string, cookie: string): Client<typeof AccountService> =>
  createClient(AccountService, createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: [withCookie(cookie)] }));

export interface Person {
  userId: string;
  email: string;
  password: string;
  /** The `vigil_session` cookie's value. */
  token: string;
}

/** A person with `role` in the workspace `slug`, made in the database and signed in through POST /v1/auth/sign-in. */
export async function signedInPerson(prisma: PrismaClient, baseUrl: string, slug: string, role: Role): Promise<Person> {
  const email = `${role}-${++people}@people.test`;
  const workspace = await prisma.workspace.findUniqueOrThrow({ where: { slug } });
  const user = await prisma.user.create({ data: { email, name: `${role} ${people}`, passwordHash: await hashPassword(GOOD_PASSWORD) } });
  await prisma.membership.create({ data: { workspaceId: workspace.id, userId: user.id, role } });
  const cookie = await sessionCookie(baseUrl, email, GOOD_PASSWORD);
  return { userId: user.id, email, password: GOOD_PASSWORD, token: cookie.slice(SESSION_COOKIE.length + 1) };
}

/** The code of a second factor's `secret` at `timestamp` (ms), as an authenticator app shows it. */
export const totpCodeAt = (secret: string, timestamp: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: ACCOUNTS.totpDigits, period: ACCOUNTS.totpPeriodSeconds }).generate({ timestamp });

/** Enables a second factor for the person signed in with `cookie` through AccountService: its secret and recovery codes. */
export async function enrolSecondFactor(baseUrl: string, cookie: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const c = accountClient(baseUrl, cookie);
  const { secret } = await c.beginTotpEnrolment({});
  const { recoveryCodes } = await c.confirmTotpEnrolment({ code: totpCodeAt(secret, Date.now()) });
  return { secret, recoveryCodes };
}
