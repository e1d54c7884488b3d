import type { PrismaClient } from "@vigil/db";
import { Administration } from "./admin/operations";

/**
 * On the first local start (no workspace yet) creates a default workspace and
 * a write key, and returns the key so it can be shown once. Later starts find
 * the workspace and return null.
 */
export async function bootstrapFirstStart(prisma: PrismaClient): Promise<{ slug: string; keyId: string; key: string } | null> {
  if ((await prisma.workspace.count()) > 0) return null;
  const admin = new Administration(prisma);
  const workspace = await admin.createWorkspace({ name: "Default", slug: "default" });
  const { apiKey, key } = await admin.createApiKey({ workspaceSlug: workspace.slug, scope: "write", name: "created on first start" });
  return { slug: workspace.slug, keyId: apiKey.id, key };
}
