import { z } from "zod";
import { DEFAULTS, LIMITS } from "./limits";
import { integer, text } from "./rules";
import { parseOrThrow } from "./validation";

/** A filter of ListAuditLogEntries: empty means any; as long as the longest key name, method or email it matches. */
const filterText = () => text(256);

const auditLogRequest = z
  .object({
    since: z.date().optional(),
    until: z.date().optional(),
    actor: filterText(),
    action: filterText(),
    target_kind: filterText(),
    limit: integer(LIMITS.listLimit).default(DEFAULTS.listLimit),
  })
  .refine((r) => !r.since || !r.until || r.since <= r.until, { path: ["until"], message: "must not be before since" });

export type AuditLogRequest = z.output<typeof auditLogRequest>;

/** ListAuditLogEntries's filters (each optional) and page size (1 to 100, 50 when absent), the same in the console and the API. */
export function parseAuditLogRequest(input: z.input<typeof auditLogRequest>): AuditLogRequest {
  return parseOrThrow(auditLogRequest, input, "");
}

const BACK_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const TIME_OR_DURATION_RULE = "must be an ISO time (2026-11-23T10:00:00Z) or a duration such as 30m, 12h, 7d";

/** An audit filter's time as people type it: an ISO time, or a duration back from `now` (30m, 12h, 7d); null when it is neither. */
export function timeOrDurationBack(value: string, now: Date): Date | null {
  const back = /^(\d+)([mhd])$/.exec(value);
  if (back) return new Date(now.getTime() - Number(back[1]) * BACK_MS[back[2] as keyof typeof BACK_MS]);
  const at = new Date(value);
  return /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(at.getTime()) ? at : null;
}
