import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { AuditEntryRow, Prisma, PrismaClient } from "@vigil/db";
import type { AuditLogRequest } from "@vigil/domain";
import { decodeCursor, pageOf } from "../paging";

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

/** An entry's fields as both the admin command's and the API's messages name them. */
export const auditEntryFields = (e: AuditEntryRow) => ({
  id: e.id,
  at: timestampFromDate(e.at),
  actorType: e.actorType,
  apiKeyId: e.apiKeyId ?? "",
  apiKeyName: e.apiKeyName ?? "",
  apiKeyPrefix: e.apiKeyPrefix ?? "",
  userId: e.userId ?? "",
  userEmail: e.userEmail ?? "",
  method: e.method,
  targetKind: e.targetKind,
  targetId: e.targetId,
  changes: e.changes as JsonObject,
});

/** Who an `actor` filter names: a key by id or prefix, a person by id or email (any case), or the operator ("admin"). */
const byActor = (actor: string): Prisma.AuditEntryWhereInput => ({
  OR: [
    { apiKeyId: actor },
    { apiKeyPrefix: actor },
    { userId: actor },
    { userEmail: { equals: actor, mode: "insensitive" } },
    ...(actor === "admin" ? [{ actorType: "admin" }] : []),
  ],
});

/** A method named in full, by its last part (CreateStatusPage), or an HTTP route. */
const byAction = (action: string): Prisma.AuditEntryWhereInput => ({ OR: [{ method: action }, { method: { endsWith: `/${action}` } }] });

/** The audit log's table: written after each mutation, read by the admin command and AuditLogService, pruned to the retention. */
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

  /** One workspace's entries, newest first, filtered, a page after `cursor` (empty for the first). */
  async page(workspaceId: string, filter: AuditLogRequest, cursor: string): Promise<{ entries: AuditEntryRow[]; nextCursor: string }> {
    const after = cursor === "" ? null : decodeCursor(cursor);
    const rows = await this.prisma.auditEntry.findMany({
      where: {
        workspaceId,
        at: { gte: filter.since, lt: filter.until },
        targetKind: filter.target_kind || undefined,
        AND: [
          filter.actor ? byActor(filter.actor) : {},
          filter.action ? byAction(filter.action) : {},
          after ? { OR: [{ at: { lt: after.at } }, { at: after.at, id: { lt: after.id } }] } : {},
        ],
      },
      orderBy: [{ at: "desc" }, { id: "desc" }],
      take: filter.limit + 1,
    });
    const { items, nextCursor } = pageOf(rows, filter.limit, (row) => row);
    return { entries: items, nextCursor };
  }

  /** Deletes entries older than the retention; returns how many. */
  async prune(retentionDays: number, now = new Date()): Promise<number> {
    const { count } = await this.prisma.auditEntry.deleteMany({ where: { at: { lt: new Date(now.getTime() - retentionDays * DAY_MS) } } });
    return count;
  }
}
