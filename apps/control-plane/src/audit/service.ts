import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { parseAuditLogRequest } from "@vigil/domain";
import { AuditLogEntrySchema, type AuditLogService } from "@vigil/proto/account";
import { requirePermission } from "../auth/context";
import { auditEntryFields, type AuditStore } from "./store";

/** AuditLogService: the workspace's audit log, for the roles with the `audit` permission (owners and admins). */
export function auditLogService(store: AuditStore): ServiceImpl<typeof AuditLogService> {
  return {
    async listAuditLogEntries(req, ctx) {
      const actor = requirePermission(ctx, "audit");
      const filter = parseAuditLogRequest({
        since: req.since && timestampDate(req.since),
        until: req.until && timestampDate(req.until),
        actor: req.actor,
        action: req.action,
        target_kind: req.targetKind,
        limit: req.limit,
      });
      const page = await store.page(actor.workspace.id, filter, req.cursor);
      return { entries: page.entries.map((e) => create(AuditLogEntrySchema, auditEntryFields(e))), nextCursor: page.nextCursor };
    },
  };
}
