import type { JsonObject } from "@bufbuild/protobuf";
import type { AuditEntryRow, Prisma, PrismaClient } from "@vigil/db";

export type AuditActor = { type: "api_key"; keyId: string } | { type: "user"; userId: string; email: string } | { type: "admin" };

/** One mutation to record; when it happened is the database's clock. */
export interface AuditRecord {
  workspaceId: string;
  actor: AuditActor;
  /** Full RPC name (monitor.v1.MonitorService/CreateHTTPMonitor) or HTTP route. */
  method: string;
  targetKind: string;
  targetId: string;
  /** The request's fields, secrets already replaced by fingerprints. */
  changes: JsonObject;
}

const DAY_MS = 24 * 3_600_000;

/** The audit log's table: written after each mutation, read by the admin command, pruned to the retention. */
export class AuditStore {
  constructor(private readonly prisma: PrismaClient) {}

  async record(entry: AuditRecord): Promise<void> {
    // The key's name and prefix are copied so the entry keeps naming it as it was.
    const key =
      entry.actor.type === "api_key"
        ? await this.prisma.apiKey.findUnique({ where: { id: entry.actor.keyId }, select: { id: true, name: true, prefix: true } })
        : null;
    await this.prisma.auditEntry.create({
      data: {
        workspaceId: entry.workspaceId,
        actorType: entry.actor.type,
        apiKeyId: key?.id ?? null,
        apiKeyName: key?.name ?? null,
        apiKeyPrefix: key?.prefix ?? null,
        userId: entry.actor.type === "user" ? entry.actor.userId : null,
        userEmail: entry.actor.type === "user" ? entry.actor.email : null,
        method: entry.method,
        targetKind: entry.targetKind,
        targetId: entry.targetId,
        changes: entry.changes as Prisma.InputJsonObject,
      },
    });
  }

  /** Newest first; ties (same millisecond) in the reverse order of their time-ordered ids. */
  list(filter: { workspaceId?: string | undefined; since?: Date | undefined; limit: number }): Promise<AuditEntryRow[]> {
    return this.prisma.auditEntry.findMany({
      where: { workspaceId: filter.workspaceId, at: filter.since ? { gte: filter.since } : undefined },
      orderBy: [{ at: "desc" }, { id: "desc" }],
      take: filter.limit,
    });
  }

  /** Deletes entries older than the retention; returns how many. */
  async prune(retentionDays: number, now = new Date()): Promise<number> {
    const { count } = await this.prisma.auditEntry.deleteMany({ where: { at: { lt: new Date(now.getTime() - retentionDays * DAY_MS) } } });
    return count;
  }
}
