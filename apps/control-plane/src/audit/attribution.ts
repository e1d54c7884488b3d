import type { Actor } from "../auth/actor";
import { actorKey } from "../auth/context";
import type { Attribution } from "./interceptor";
import type { AuditActor } from "./store";

/** An API caller as the audit log names it: its key or the person, in its workspace. */
export const auditedCaller = (actor: Actor): { workspaceId: string; actor: AuditActor } => ({
  workspaceId: actor.workspace.id,
  actor: actor.type === "apiKey" ? { type: "api_key", keyId: actor.keyId } : { type: "user", userId: actor.userId, email: actor.email },
});

/** Calls to the public API: the key or session the auth interceptor resolved. */
export const apiKeyAttribution: Attribution = async (req) => {
  const actor = req.contextValues.get(actorKey);
  if (!actor) throw new Error("audit interceptor placed before authentication");
  return auditedCaller(actor);
};

/** The admin service's mutations answer the workspace, key or invitation's workspace they acted on; the operator is the actor. */
export const adminAttribution =
  (workspaceIdOf: (slug: string) => Promise<string>): Attribution =>
  async (_req, res) => {
    const answer = res.message as { workspace?: { id: string }; apiKey?: { workspaceSlug: string }; workspaceSlug?: string };
    const slug = answer.apiKey?.workspaceSlug ?? answer.workspaceSlug;
    const workspaceId = answer.workspace?.id ?? (slug ? await workspaceIdOf(slug) : "");
    return { workspaceId, actor: { type: "admin" } };
  };
