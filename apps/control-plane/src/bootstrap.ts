import type { PrismaClient } from "@vigil/db";
import { ACCOUNTS } from "@vigil/domain";
import { Administration } from "./admin/operations";

/**
 * On the first local start (no workspace yet) creates a default workspace, a
 * write key and an invitation that makes its first owner (valid 24 hours, for
 * whoever opens it first), and returns the key and the invitation's token so
 * they can be shown once. Later starts find the workspace and return null.
 */
export async function bootstrapFirstStart(prisma: PrismaClient): Promise<{ slug: string; keyId: string; key: string; ownerToken: string } | null> {
  if ((await prisma.workspace.count()) > 0) return null;
  const admin = new Administration(prisma);
  const workspace = await admin.createWorkspace({ name: "Default", slug: "default" });
  const { apiKey, key } = await admin.createApiKey({ workspaceSlug: workspace.slug, scope: "write", name: "created on first start" });
  const owner = await admin.inviteUser({ workspaceSlug: workspace.slug, email: "", role: "owner" }, ACCOUNTS.firstOwnerInvitationHours);
  return { slug: workspace.slug, keyId: apiKey.id, key, ownerToken: owner.token };
}
