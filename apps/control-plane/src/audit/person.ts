import type { JsonObject } from "@bufbuild/protobuf";
import type { PrismaClient } from "@vigil/db";
import type { Logger } from "@vigil/logging";
import { recordAudit } from "./record";
import type { AuditStore } from "./store";

/** What a person did to their own account, or what was done to it (a failed sign-in). */
export interface PersonEvent {
  person: { userId: string; email: string };
  /** Full RPC name or HTTP route, as the audit log writes them (`POST /v1/auth/sign-in`). */
  method: string;
  targetKind: string;
  targetId: string;
  /** Never a password, code, token, secret or session id. */
  changes: JsonObject;
}

/**
 * Records an event of a person's account in the audit log of each workspace
 * they belong to: an account belongs to no one workspace, and each
 * workspace's admins should see sign-ins and changes of its members.
 */
export async function recordForPerson(deps: { prisma: PrismaClient; audit: AuditStore; logger: Logger }, event: PersonEvent): Promise<void> {
  const memberships = await deps.prisma.membership.findMany({ where: { userId: event.person.userId }, select: { workspaceId: true } });
  const actor = { type: "user" as const, userId: event.person.userId, email: event.person.email };
  const { method, targetKind, targetId, changes } = event;
  await Promise.all(memberships.map(({ workspaceId }) => recordAudit(deps.audit, { workspaceId, actor, method, targetKind, targetId, changes }, deps.logger)));
}
