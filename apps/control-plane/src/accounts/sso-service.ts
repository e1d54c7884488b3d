import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient, SsoSettingsRow } from "@vigil/db";
import { parseOrThrow, ssoSettingsFields } from "@vigil/domain";
import { SsoSettingsSchema, type SsoService, type SsoSettings } from "@vigil/proto/account";
import { requirePermission } from "../auth/context";
import type { SecretBox } from "../notifications/secrets";
import { oidcUrls } from "./oidc";
import type { UserSessions } from "./sessions";

const settingsMessage = (row: SsoSettingsRow): SsoSettings =>
  create(SsoSettingsSchema, {
    issuerUrl: row.issuerUrl,
    clientId: row.clientId,
    clientSecretSet: row.clientSecret !== null,
    allowedDomains: row.allowedDomains,
    defaultRole: row.defaultRole,
    roleClaim: row.roleClaim,
    roleMapping: row.roleMapping as Record<string, string>,
    enforced: row.enforced,
    enabled: row.enabled,
  });

/**
 * SsoService: a workspace's OpenID Connect settings, for its owners (the
 * `own` permission, which no key has). The client secret is sealed with the
 * deployment key and never answered.
 */
export function ssoService(prisma: PrismaClient, secrets: SecretBox, publicUrl: string, sessions: UserSessions): ServiceImpl<typeof SsoService> {
  return {
    async getSsoSettings(_req, ctx) {
      const actor = requirePermission(ctx, "own");
      const row = await prisma.ssoSettings.findUnique({ where: { workspaceId: actor.workspace.id } });
      const urls = oidcUrls(publicUrl, actor.workspace.slug);
      return { settings: row ? settingsMessage(row) : undefined, redirectUri: urls.redirectUri, signInUrl: urls.start };
    },

    async setSsoSettings(req, ctx) {
      const actor = requirePermission(ctx, "own");
      const s = req.settings;
      const fields = parseOrThrow(
        ssoSettingsFields,
        s && {
          issuer_url: s.issuerUrl,
          client_id: s.clientId,
          client_secret: s.clientSecret,
          allowed_domains: s.allowedDomains,
          default_role: s.defaultRole,
          role_claim: s.roleClaim,
          role_mapping: s.roleMapping,
          enforced: s.enforced,
          enabled: s.enabled,
        },
        "settings",
      );
      const { client_secret: secret, ...rest } = fields;
      const data = {
        issuerUrl: rest.issuer_url,
        clientId: rest.client_id,
        allowedDomains: rest.allowed_domains,
        defaultRole: rest.default_role,
        roleClaim: rest.role_claim,
        roleMapping: rest.role_mapping,
        enforced: rest.enforced,
        enabled: rest.enabled,
        // An empty secret keeps the stored one (a public client while none was ever set).
        ...(secret !== "" && { clientSecret: secrets.seal(secret) }),
      };
      const row = await prisma.ssoSettings.upsert({ where: { workspaceId: actor.workspace.id }, create: { workspaceId: actor.workspace.id, ...data }, update: data });
      // Enforcement holds (or ends) for every member's session on every control plane from the answer on.
      await sessions.forgetMembersOf(actor.workspace.id);
      return { settings: settingsMessage(row) };
    },
  };
}
