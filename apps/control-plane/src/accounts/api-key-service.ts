import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ApiKeyRow, PrismaClient, UserRow } from "@vigil/db";
import { newApiKeyFields, parseOrThrow } from "@vigil/domain";
import { ApiKeySchema, type ApiKey, type ApiKeyService } from "@vigil/proto/account";
import { newApiKeySecret } from "../auth/api-keys";
import { requirePermission } from "../auth/context";
import type { KeyRevocations } from "../auth/revocation-relay";
import { revokeApiKey } from "../auth/revoke";

type KeyWithCreator = ApiKeyRow & { createdBy: UserRow | null };

const at = (date: Date | null): Timestamp | undefined => (date ? timestampFromDate(date) : undefined);

const apiKeyMessage = (k: KeyWithCreator): ApiKey =>
  create(ApiKeySchema, {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdBy: k.createdBy ? { userId: k.createdBy.id, email: k.createdBy.email } : undefined,
    createdAt: timestampFromDate(k.createdAt),
    lastUsedAt: at(k.lastUsedAt),
    expiresAt: at(k.expiresAt),
    revokedAt: at(k.revokedAt),
  });

const withCreator = { createdBy: true } as const;

/**
 * ApiKeyService: a workspace's keys, for its admins and owners (the `keys`
 * permission, which no key has). The secret is in CreateApiKey's answer only;
 * the audit entry records the request, which does not carry it.
 */
export function apiKeyService(prisma: PrismaClient, revocations: KeyRevocations): ServiceImpl<typeof ApiKeyService> {
  return {
    async createApiKey(req, ctx) {
      const actor = requirePermission(ctx, "keys");
      const fields = parseOrThrow(newApiKeyFields(new Date()), { name: req.name, scopes: req.scopes, expires_at: req.expiresAt && timestampDate(req.expiresAt) }, "");
      const { key, prefix, secretHash } = newApiKeySecret();
      const apiKey = await prisma.apiKey.create({
        data: {
          workspaceId: actor.workspace.id,
          name: fields.name,
          prefix,
          secretHash,
          scopes: fields.scopes,
          expiresAt: fields.expires_at ?? null,
          createdById: actor.type === "user" ? actor.userId : null,
        },
        include: withCreator,
      });
      return { key, apiKey: apiKeyMessage(apiKey) };
    },

    async listApiKeys(_req, ctx) {
      const actor = requirePermission(ctx, "keys");
      const keys = await prisma.apiKey.findMany({ where: { workspaceId: actor.workspace.id }, orderBy: { createdAt: "asc" }, include: withCreator });
      return { apiKeys: keys.map(apiKeyMessage) };
    },

    async revokeApiKey(req, ctx) {
      const actor = requirePermission(ctx, "keys");
      const { id } = await revokeApiKey(prisma, revocations, actor, req.id);
      return { apiKey: apiKeyMessage(await prisma.apiKey.findUniqueOrThrow({ where: { id }, include: withCreator })) };
    },
  };
}
