// A person of the bench workspace for the console's benchmarks, and their session.
import { SESSION_COOKIE, type Role } from "@vigil/domain";
import type { PrismaClient } from "@vigil/db";
import { hashPassword } from "@vigil/control-plane/auth/password";

export interface BenchPerson {
  email: string;
  name: string;
  password: string;
}

/** `person` as a member of the workspace "bench" (bench/seed.ts) with `role`. */
export async function addPerson(prisma: PrismaClient, person: BenchPerson, role: Role = "viewer"): Promise<void> {
  const workspace = await prisma.workspace.findUniqueOrThrow({ where: { slug: "bench" } });
  await prisma.user.create({
    data: { email: person.email, name: person.name, passwordHash: await hashPassword(person.password), memberships: { create: { workspaceId: workspace.id, role } } },
  });
}

/** Signs `person` in at `baseUrl` and answers the session cookie's value. */
export async function sessionOf(baseUrl: string, person: BenchPerson): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/auth/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: person.email, password: person.password }) });
  const token = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (res.status !== 200 || !token) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  return token;
}
