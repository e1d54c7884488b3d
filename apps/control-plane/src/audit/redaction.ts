import type { JsonValue } from "@bufbuild/protobuf";
import { SENSITIVE_FIELDS, secretFingerprint } from "@vigil/domain";

/**
 * Fields whose values are secrets wherever they appear in a request: the
 * channels' sensitive fields, page passwords, and header values (monitors',
 * webhooks' and OTLP exports' headers typically carry credentials).
 */
const SECRET_FIELDS = new Set<string>([...Object.values(SENSITIVE_FIELDS).flat(), "password"]);
const HEADER_LIST = "headers";

const fingerprinted = (ownerId: string, value: JsonValue): JsonValue =>
  typeof value === "string" && value !== "" ? `fingerprint:${secretFingerprint(ownerId, value)}` : value;

/**
 * A request's JSON as the audit log keeps it: every secret replaced by its
 * fingerprint salted with the target's id, the same fingerprint answers show
 * (a channel's secretFingerprints, a page's passwordFingerprint), so that an
 * auditor can tell which value was set without the log holding it.
 */
export function redactForAudit(value: JsonValue, ownerId: string): JsonValue {
  if (Array.isArray(value)) return value.map((item) => redactForAudit(item, ownerId));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => {
      if (SECRET_FIELDS.has(key)) return [key, fingerprinted(ownerId, field)];
      if (key === HEADER_LIST && Array.isArray(field)) {
        return [key, field.map((header) => redactHeader(header, ownerId))];
      }
      return [key, redactForAudit(field, ownerId)];
    }),
  );
}

function redactHeader(header: JsonValue, ownerId: string): JsonValue {
  if (header === null || typeof header !== "object" || Array.isArray(header)) return header;
  return { ...header, value: fingerprinted(ownerId, header.value ?? "") };
}
