import { DEFAULTS, LIMITS, TIME_OR_DURATION_RULE, timeOrDurationBack } from "@vigil/domain";
import { AuditLogService, type AuditLogEntry } from "@vigil/proto/account";
import { Command, InvalidArgumentError } from "commander";
import { action, send } from "../context.js";
import { parseInteger } from "../fields.js";
import { isoTime, jsonFlagOutput, table } from "../output.js";

function parseTime(value: string): string {
  const at = timeOrDurationBack(value, new Date());
  if (!at) throw new InvalidArgumentError(TIME_OR_DURATION_RULE);
  return at.toISOString();
}

/** Who made the change, as `pnpm admin audit` names them. */
const auditActor = (e: AuditLogEntry): string =>
  e.actorType === "api_key" ? `key ${e.apiKeyPrefix}…${e.apiKeyName ? ` (${e.apiKeyName})` : ""}` : e.actorType === "user" ? e.userEmail : e.actorType;

export function auditCommand(): Command {
  return new Command("audit")
    .description("the workspace's audit log, newest first (signed in as an admin or owner, `vigil login --email`)")
    .option("--since <time>", "only entries since an ISO time or a duration back (30m, 12h, 7d)", parseTime)
    .option("--until <time>", "only entries before an ISO time or a duration back", parseTime)
    .option("--actor <who>", "only this actor: a key's id or prefix, a person's id or email, or admin")
    .option("--action <method>", "only this method: CreateStatusPage, or its full name")
    .option("--target <kind>", "only this kind of resource: StatusPage, HTTPMonitor, ...")
    .option("--limit <n>", `at most this many (${LIMITS.listLimit.min} to ${LIMITS.listLimit.max}, default ${DEFAULTS.listLimit})`, parseInteger)
    .option("--cursor <cursor>", "the older page after the one that printed this cursor")
    .option("--json", "the answer as JSON")
    .action(
      action(async (ctx, o: { since?: string; until?: string; actor?: string; action?: string; target?: string; limit?: number; cursor?: string; json?: boolean }) => {
        const request = { since: o.since, until: o.until, actor: o.actor, action: o.action, targetKind: o.target, limit: o.limit, cursor: o.cursor };
        await send({ ...ctx, out: jsonFlagOutput(ctx.out, o.json) }, AuditLogService.method.listAuditLogEntries, ctx.client.auditLog.listAuditLogEntries, request, (r) => {
          const rows = r.entries.map((e) => [isoTime(e.at), auditActor(e), e.method, `${e.targetKind} ${e.targetId}`, JSON.stringify(e.changes ?? {})]);
          const page = table(ctx.out.colors, ["TIME", "ACTOR", "ACTION", "TARGET", "CHANGES"], rows);
          return r.nextCursor ? `${page}\n\nolder: --cursor ${r.nextCursor}` : page;
        });
      }),
    );
}
