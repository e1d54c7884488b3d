import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient } from "@vigil/db";
import { can, canWrite, type Actor } from "./actor";
import type { KeyRevocations } from "./revocation-relay";

/**
 * Revokes a key of the caller's workspace. A write key may revoke any of
 * them, a read key only itself, a person when an admin or owner. Revoking an already revoked key succeeds and
 * keeps the first revocation time. It answers once every control plane has
 * stopped accepting the key. DELETE /v1/api-key/{id} and ApiKeyService's
 * RevokeApiKey both come here; its errors read alike over either.
 */
export async function revokeApiKey(prisma: PrismaClient, revocations: KeyRevocations, actor: Actor, keyId: string): Promise<{ id: string; revokedAt: Date }> {
  const key = await prisma.apiKey.findFirst({ where: { id: keyId, workspaceId: actor.workspace.id } });
  if (!key) throw new ConnectError(`API key ${keyId} not found`, Code.NotFound);
  if (actor.type === "user" && !can(actor, "keys")) throw new ConnectError("revoking API keys needs an admin's or owner's role", Code.PermissionDenied);
  if (actor.type === "apiKey" && key.id !== actor.keyId && !canWrite(actor)) {
    throw new ConnectError("a read-only key may revoke only itself", Code.PermissionDenied);
  }
  if (key.revokedAt) return { id: key.id, revokedAt: key.revokedAt };
  const revoked = await prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
  await revocations.announce(revoked.id);
  return { id: revoked.id, revokedAt: revoked.revokedAt! };
}
