import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { isRole } from "@vigil/domain";
import { AccountService } from "@vigil/proto/account";
import { hashPassword } from "../../src/auth/password";
import type { TestApi } from "./api";

let people = 0;

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

/** POST /v1/auth/sign-in at `baseUrl`: the `vigil_session=…` cookie to send back. */
export async function signIn(baseUrl: string, email: string, password: string, userAgent = "people-test"): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/auth/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": userAgent },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("vigil_session="));
  if (!cookie) throw new Error("sign-in set no session cookie");
  return cookie.split(";")[0]!;
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
