import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { WorkspaceRow } from "@vigil/db";
import { AdminService, ApiKeySchema, WorkspaceSchema, type ApiKey, type Workspace } from "@vigil/proto/admin";
import type { Administration, ApiKeyWithWorkspace } from "./operations";

export const workspaceMessage = (w: WorkspaceRow): Workspace =>
  create(WorkspaceSchema, { id: w.id, name: w.name, slug: w.slug, plan: w.plan, createdAt: timestampFromDate(w.createdAt) });

export const apiKeyMessage = (k: ApiKeyWithWorkspace): ApiKey =>
  create(ApiKeySchema, {
    id: k.id,
    workspaceSlug: k.workspace.slug,
    name: k.name,
    scopes: k.scopes,
    prefix: k.prefix,
    createdAt: timestampFromDate(k.createdAt),
    revokedAt: k.revokedAt ? timestampFromDate(k.revokedAt) : undefined,
  });

export function adminService(admin: Administration): ServiceImpl<typeof AdminService> {
  return {
    createWorkspace: async (req) => ({ workspace: workspaceMessage(await admin.createWorkspace(req)) }),
    listWorkspaces: async () => ({ workspaces: (await admin.listWorkspaces()).map(workspaceMessage) }),
    async createApiKey(req) {
      const { apiKey, key } = await admin.createApiKey(req);
      return { apiKey: apiKeyMessage(apiKey), key };
    },
    listApiKeys: async (req) => ({ apiKeys: (await admin.listApiKeys(req.workspaceSlug)).map(apiKeyMessage) }),
    revokeApiKey: async (req) => ({ apiKey: apiKeyMessage(await admin.revokeApiKey(req.id)) }),
  };
}
