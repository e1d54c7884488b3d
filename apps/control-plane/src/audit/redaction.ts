import type { JsonValue } from "@bufbuild/protobuf";
import { SENSITIVE_FIELDS, fingerprintText, redactCredentials } from "@vigil/domain";

/** Fields whose values are secrets wherever they appear in a request: the channels' sensitive fields and page passwords. */
const SECRET_FIELDS = new Set<string>([...Object.values(SENSITIVE_FIELDS).flat(), "password"]);
/**
 * People's secrets are not even fingerprinted: a short fast hash of a
 * password would let whoever reads the log guess at it.
 */
const PEOPLES_SECRETS = new Set<string>(["password", "currentPassword", "newPassword", "token", "totp", "key"]);
/** A workspace's secrets in account.v1 (SsoService's client secret): random, so a fingerprint tells nothing, and tells an auditor which one was set. */
const WORKSPACE_SECRETS = new Set<string>(["clientSecret"]);
export const NOT_RECORDED = "(not recorded)";

/** A request of account.v1 as the audit log keeps it: every secret of a person left out, a workspace's fingerprinted with `ownerId`. */
export function withoutPeoplesSecrets(value: JsonValue, ownerId: string): JsonValue {
  if (Array.isArray(value)) return value.map((item) => withoutPeoplesSecrets(item, ownerId));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => {
      if (field === "" || !(PEOPLES_SECRETS.has(key) || WORKSPACE_SECRETS.has(key))) return [key, withoutPeoplesSecrets(field, ownerId)];
      return [key, PEOPLES_SECRETS.has(key) || typeof field !== "string" ? NOT_RECORDED : fingerprintText(ownerId, field)];
    }),
  );
}

function redactSecretFields(value: JsonValue, ownerId: string): JsonValue {
  if (Array.isArray(value)) return value.map((item) => redactSecretFields(item, ownerId));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      SECRET_FIELDS.has(key) && typeof field === "string" && field !== "" ? fingerprintText(ownerId, field) : redactSecretFields(field, ownerId),
    ]),
  );
}

/**
 * A request's JSON as the audit log keeps it: every secret replaced by its
 * fingerprint salted with the target's id, the same fingerprint answers show
 * (a channel's secretFingerprints, a page's passwordFingerprint, a read key's
 * redacted credentials), so that an auditor can tell which value was set
 * without the log holding it. Besides the secret fields, the credentials
 * inside other fields (header values, URL user info, a webhook endpoint's
 * path and query) follow the domain's rule, as answers to read keys do.
 */
export function redactForAudit(value: JsonValue, ownerId: string): JsonValue {
  return redactSecretFields(redactCredentials(value, ownerId), ownerId);
}
