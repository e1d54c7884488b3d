import { z } from "zod";
import { Prisma, type ApiKeyRow, type AuditEntryRow, type PrismaClient, type WorkspaceRow } from "@vigil/db";
import { ACCOUNTS, DEFAULTS, LIMITS, ValidationError, emailField, parseOrThrow, roleField } from "@vigil/domain";
import { Invitations } from "../accounts/invitations";
import { AuditStore } from "../audit/store";
import { newApiKeySecret, type ScopeChoice } from "../auth/api-keys";
import type { KeyRevocations } from "../auth/revocation-relay";

const workspaceSchema = z.object({
  name: z.string().min(1, "must not be empty").max(256, "must be at most 256 characters"),
  slug: z
    .string()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, "must be 1 to 64 lower-case letters, digits or inner hyphens"),
  plan: z.string().min(1, "must not be empty").max(64, "must be at most 64 characters").default("free"),
});

const scopeSchema = z.enum(["read", "write", "none"], { error: "must be read, write or none" });

const { min, max } = LIMITS.auditListLimit;
const auditLimitSchema = z
  .number()
  .int()
  .min(min, `must be from ${min} to ${max}`)
  .max(max, `must be from ${min} to ${max}`);

export type ApiKeyWithWorkspace = ApiKeyRow & { workspace: WorkspaceRow };
/** An audit entry with the slug of its workspace ("" once the workspace is gone). */
export type AuditEntryWithSlug = AuditEntryRow & { workspaceSlug: string };

/** Workspace and API-key administration, shared by the admin socket and the offline command. */
export class Administration {
  readonly audit: AuditStore;

  constructor(
    private readonly prisma: PrismaClient,
    /** How a revocation reaches the running control planes; none where none runs on this database. */
    private readonly revocations: KeyRevocations | null = null,
  ) {
    this.audit = new AuditStore(prisma);
  }

  /**
   * An invitation to a workspace, for the operator to hand over: its token is
   * answered (the link is made from it) instead of mailed. `validHours`: 7
   * days, or 24 hours for the first owner's.
   */
  async inviteUser(
    input: { workspaceSlug: string; email: string; role: string },
    validHours: number = ACCOUNTS.invitationDays * 24,
  ): Promise<{ invitationId: string; token: string; workspaceSlug: string }> {
    const workspace = await this.workspaceBySlug(input.workspaceSlug);
    const email = input.email === "" ? null : parseOrThrow(emailField(), input.email, "email");
    const role = parseOrThrow(roleField(), input.role, "role");
    const { invitation, token } = await new Invitations(this.prisma).create({ workspaceId: workspace.id, email, role, invitedById: null, validHours });
    return { invitationId: invitation.id, token, workspaceSlug: workspace.slug };
  }

  async createWorkspace(input: { name: string; slug: string; plan?: string | undefined }): Promise<WorkspaceRow> {
    const data = parseOrThrow(workspaceSchema, { ...input, plan: input.plan || undefined }, "");
    try {
      return await this.prisma.workspace.create({ data });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        throw ValidationError.of("slug", `${data.slug} is already taken`);
      }
      throw error;
    }
  }

  listWorkspaces(): Promise<WorkspaceRow[]> {
    return this.prisma.workspace.findMany({ orderBy: { createdAt: "asc" } });
  }

  /** Creates a key and returns its secret, the only time it exists outside the caller's hands. */
  async createApiKey(input: { workspaceSlug: string; scope: string; name?: string }): Promise<{ apiKey: ApiKeyWithWorkspace; key: string }> {
    const scope: ScopeChoice = parseOrThrow(scopeSchema, input.scope, "scope");
    const workspace = await this.workspaceBySlug(input.workspaceSlug);
    const { key, prefix, secretHash } = newApiKeySecret();
    const apiKey = await this.prisma.apiKey.create({
      data: { workspaceId: workspace.id, name: input.name ?? "", prefix, secretHash, scopes: scope === "none" ? [] : [scope] },
      include: { workspace: true },
    });
    return { apiKey, key };
  }

  async listApiKeys(workspaceSlug: string): Promise<ApiKeyWithWorkspace[]> {
    const workspace = await this.workspaceBySlug(workspaceSlug);
    return this.prisma.apiKey.findMany({ where: { workspaceId: workspace.id }, orderBy: { createdAt: "asc" }, include: { workspace: true } });
  }

  async revokeApiKey(id: string): Promise<ApiKeyWithWorkspace> {
    const key = await this.prisma.apiKey.findUnique({ where: { id }, include: { workspace: true } });
    if (!key) throw ValidationError.of("id", `no API key ${id}`);
    if (key.revokedAt) return key;
    const revoked = await this.prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date() }, include: { workspace: true } });
    await this.revocations?.announce(id);
    return revoked;
  }

  /** The audit log, newest first; a limit of 0 means the default. */
  async listAuditEntries(input: { workspaceSlug: string; since: Date | undefined; limit: number }): Promise<AuditEntryWithSlug[]> {
    const limit = parseOrThrow(auditLimitSchema, input.limit || DEFAULTS.auditListLimit, "limit");
    const workspaceId = input.workspaceSlug ? await this.workspaceIdOf(input.workspaceSlug) : undefined;
    const entries = await this.audit.list({ workspaceId, since: input.since, limit });
    const workspaces = await this.prisma.workspace.findMany({ where: { id: { in: [...new Set(entries.map((e) => e.workspaceId))] } } });
    const slugs = new Map(workspaces.map((w) => [w.id, w.slug]));
    return entries.map((entry) => ({ ...entry, workspaceSlug: slugs.get(entry.workspaceId) ?? "" }));
  }

  readonly workspaceIdOf = async (slug: string): Promise<string> => (await this.workspaceBySlug(slug)).id;

  private async workspaceBySlug(slug: string): Promise<WorkspaceRow> {
    const workspace = await this.prisma.workspace.findUnique({ where: { slug } });
    if (!workspace) throw ValidationError.of("workspace", `no workspace with slug ${slug}`);
    return workspace;
  }
}
