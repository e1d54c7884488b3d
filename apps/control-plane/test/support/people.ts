import { randomUUID } from "node:crypto";
import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { parseSetCookie } from "cookie";
import type { PrismaClient } from "@vigil/db";
import { SESSION_COOKIE, WORKSPACE_HEADER, type Role } from "@vigil/domain";
import { hashPassword } from "../../src/auth/password";

export interface Person {
  userId: string;
  email: string;
  password: string;
  /** The `vigil_session` cookie's value. */
  token: string;
}

const PASSWORD = "correct horse battery staple";
let people = 0;

/** A person with `role` in the workspace `slug`, signed in through POST /v1/auth/sign-in. */
export async function signedInPerson(prisma: PrismaClient, baseUrl: string, slug: string, role: Role): Promise<Person> {
  const email = `${role}-${++people}-${randomUUID().slice(0, 8)}@people.test`;
  const workspace = await prisma.workspace.findUniqueOrThrow({ where: { slug } });
  const user = await prisma.user.create({ data: { email, name: `${role} ${people}`, passwordHash: await hashPassword(PASSWORD) } });
  await prisma.membership.create({ data: { workspaceId: workspace.id, userId: user.id, role } });
  const res = await fetch(`${baseUrl}/v1/auth/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: PASSWORD }) });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers.getSetCookie().map((line) => parseSetCookie(line)).find((c) => c.name === SESSION_COOKIE);
  return { userId: user.id, email, password: PASSWORD, token: cookie!.value! };
}

/** A Connect client of `service` that sends a person's session cookie (and, when given, the workspace to act in). */
export function sessionClient<S extends DescService>(service: S, baseUrl: string, token: string, workspace?: string): Client<S> {
  const withSession: Interceptor = (next) => (req) => {
    req.header.set("cookie", `${SESSION_COOKIE}=${token}`);
    if (workspace) req.header.set(WORKSPACE_HEADER, workspace);
    return next(req);
  };
  return createClient(service, createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: [withSession] }));
}
