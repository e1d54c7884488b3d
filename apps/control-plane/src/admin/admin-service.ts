import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Interceptor, ServiceImpl } from "@connectrpc/connect";
import type { WorkspaceRow } from "@vigil/db";
import type { Logger } from "@vigil/logging";
import { AdminService, ApiKeySchema, AuditEntrySchema, WorkspaceSchema, type ApiKey, type AuditEntry, type Workspace } from "@vigil/proto/admin";
import { adminAttribution } from "../audit/attribution";
import { auditInterceptor } from "../audit/interceptor";
import { auditEntryFields } from "../audit/store";
import { errorsAndLogging } from "../rpc-interceptors";
import { inviteUrl } from "../accounts/invitations";
import type { Administration, ApiKeyWithWorkspace, AuditEntryWithSlug } from "./operations";

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

export const auditEntryMessage = (e: AuditEntryWithSlug): AuditEntry =>
  create(AuditEntrySchema, { ...auditEntryFields(e), workspaceId: e.workspaceId, workspaceSlug: e.workspaceSlug });

/** Every admin entry point (socket and offline command) logs each call and audits its mutations the same way. */
export const adminInterceptors = (admin: Administration, logger: Logger): Interceptor[] => [
  errorsAndLogging(logger),
  auditInterceptor(admin.audit, adminAttribution(admin.workspaceIdOf), logger),
];

/** `publicUrl`: PUBLIC_URL, which invitation links lead to. */
export function adminService(admin: Administration, publicUrl: string): ServiceImpl<typeof AdminService> {
  return {
    createWorkspace: async (req) => ({ workspace: workspaceMessage(await admin.createWorkspace(req)) }),
    listWorkspaces: async () => ({ workspaces: (await admin.listWorkspaces()).map(workspaceMessage) }),
    async createApiKey(req) {
      const { apiKey, key } = await admin.createApiKey(req);
      return { apiKey: apiKeyMessage(apiKey), key };
    },
    listApiKeys: async (req) => ({ apiKeys: (await admin.listApiKeys(req.workspaceSlug)).map(apiKeyMessage) }),
    revokeApiKey: async (req) => ({ apiKey: apiKeyMessage(await admin.revokeApiKey(req.id)) }),
    async inviteUser(req) {
      const invited = await admin.inviteUser(req);
      return { ...invited, inviteUrl: inviteUrl(publicUrl, invited.token) };
    },
    async listAuditEntries(req) {
      const since = req.since ? timestampDate(req.since) : undefined;
      const entries = await admin.listAuditEntries({ workspaceSlug: req.workspaceSlug, since, limit: req.limit });
      return { entries: entries.map(auditEntryMessage) };
    },
  };
}
