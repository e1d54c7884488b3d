import { secretFingerprint } from "./fingerprint";
import { ValidationError, fieldPath, type FieldViolation } from "./validation";

/**
 * Credentials inside configurations that are otherwise no secret, by their
 * JSON field names, so that one rule serves a monitor's configuration, a
 * provider block under its name (`{"webhook": {...}}`) and a request's JSON:
 *
 * - the value of every header in a list named `headers` (a monitor's, its
 *   OpenTelemetry export's, a webhook channel's);
 * - the user info of every URL named `url`, `endpoint` or `serverUrl`
 *   (`https://user:pass@host/…`);
 * - what follows the host in a webhook channel's `endpoint` (path, query and
 *   fragment): receivers take their token there (`/hooks/<token>`,
 *   `?token=…`), as in the providers' webhook URLs, which are secrets whole.
 *   A monitor's URL keeps its path and query: they name what is checked.
 *
 * Answers to read keys and the audit log show each as `fingerprint:` and the
 * channels' secret fingerprint (secretFingerprint) of it, salted with the
 * owner's id: a client holding a value can tell whether it is the stored one.
 */

const MARK = "fingerprint";
const REDACTED = /^fingerprint:[0-9a-f]{16}$/;
const FINGERPRINT = /^[0-9a-f]{16}$/;
const URL_FIELDS = new Set(["url", "endpoint", "serverUrl"]);
const HEADER_LISTS = "headers";
/** The webhook channel's block, as a Notification's JSON and the domain name it. */
const WEBHOOK_BLOCK = "webhook";
const WEBHOOK_URL = "endpoint";

type Kind = "header" | "url" | "webhookUrl";
type Path = readonly (string | number)[];
type Visit = (credential: string, kind: Kind, path: Path) => string;

/** A secret as read keys and the audit log are shown it: `fingerprint:` and its secretFingerprint. */
export const fingerprintText = (ownerId: string, value: string): string => `${MARK}:${secretFingerprint(ownerId, value)}`;

/** How a credential is shown; "" and a value already shown so stay as they are. */
function redactedCredential(ownerId: string, value: string): string {
  return value === "" || REDACTED.test(value) ? value : fingerprintText(ownerId, value);
}

const userInfoOf = (url: URL) => (url.password === "" ? url.username : `${url.username}:${url.password}`);
const afterHost = (url: URL) => url.pathname + url.search + url.hash;
const isRedactedPath = (rest: string) => rest.startsWith("/") && REDACTED.test(rest.slice(1));

function redactUrl(ownerId: string, value: string, webhook: boolean): string {
  // Without an "@" a URL has no user info, and only a webhook's hides more: most monitors' URLs need no parsing.
  if (!webhook && !value.includes("@")) return value;
  const url = URL.parse(value);
  if (!url) return value;
  const userInfo = userInfoOf(url);
  const rest = afterHost(url);
  const hideUser = userInfo !== "" && !REDACTED.test(userInfo);
  const hideRest = webhook && rest !== "/" && !isRedactedPath(rest);
  if (!hideUser && !hideRest) return value;
  if (hideUser) Object.assign(url, { username: MARK, password: secretFingerprint(ownerId, userInfo) });
  if (hideRest) Object.assign(url, { pathname: `/${MARK}:${secretFingerprint(ownerId, rest)}`, search: "", hash: "" });
  return url.href;
}

/** Whether a credential is shown redacted: what a client may send back from a read key's answer. */
function isRedacted(credential: string, kind: Kind): boolean {
  if (kind === "header") return REDACTED.test(credential);
  const url = URL.parse(credential);
  if (!url) return false;
  return (url.username === MARK && FINGERPRINT.test(url.password)) || (kind === "webhookUrl" && isRedactedPath(afterHost(url)));
}

/** `value` with `visit` applied to each credential in it; the same object where nothing changed. */
function mapCredentials<T>(value: T, visit: Visit, path: Path = [], inWebhook = false): T {
  if (Array.isArray(value)) {
    const items = value.map((item, i) => mapCredentials(item, visit, [...path, i]));
    return (items.some((item, i) => item !== value[i]) ? items : value) as T;
  }
  if (value === null || typeof value !== "object") return value;
  let changed: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(value)) {
    // Scalars other than URLs hold no credential: only what is visited or walked into gets a path.
    if (field === null || (typeof field !== "object" && !(URL_FIELDS.has(key) && typeof field === "string"))) continue;
    const at = [...path, key];
    let next: unknown;
    if (key === HEADER_LISTS && Array.isArray(field)) next = mapHeaders(field, visit, at);
    else if (URL_FIELDS.has(key) && typeof field === "string") next = visit(field, inWebhook && key === WEBHOOK_URL ? "webhookUrl" : "url", at);
    else next = mapCredentials(field, visit, at, key === WEBHOOK_BLOCK);
    if (next !== field) (changed ??= { ...(value as Record<string, unknown>) })[key] = next;
  }
  return (changed ?? value) as T;
}

function mapHeaders(headers: unknown[], visit: Visit, path: Path): unknown[] {
  const mapped = headers.map((header, i) => {
    if (header === null || typeof header !== "object" || typeof (header as { value?: unknown }).value !== "string") return header;
    const value = (header as { value: string }).value;
    const next = visit(value, "header", [...path, i, "value"]);
    return next === value ? header : { ...header, value: next };
  });
  return mapped.some((header, i) => header !== headers[i]) ? mapped : headers;
}

/** `value` with each credential in it shown redacted, salted with its owner's id; the same object when it holds none. */
export function redactCredentials<T>(value: T, ownerId: string): T {
  return mapCredentials(value, (credential, kind) =>
    kind === "header" ? redactedCredential(ownerId, credential) : redactUrl(ownerId, credential, kind === "webhookUrl"),
  );
}

const valueAt = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>((at, key) => (at !== null && typeof at === "object" ? (at as Record<string | number, unknown>)[key] : undefined), value);

/**
 * `given` with each redacted credential that stands for the credential of
 * `stored` in the same place taken back as that credential: a header value
 * for the value of any header of the same list, a URL when it is exactly the
 * stored URL redacted. So what a read key was answered can be sent back and
 * keeps what is stored; any other redacted credential stays as it is.
 */
export function restoreCredentials<T>(given: T, stored: unknown, ownerId: string): T {
  return mapCredentials(given, (credential, kind, path) => {
    if (!isRedacted(credential, kind)) return credential;
    if (kind === "header") {
      const list = valueAt(stored, path.slice(0, -2));
      const values = Array.isArray(list) ? list.map((header: unknown) => valueAt(header, ["value"])) : [];
      const kept = values.find((value): value is string => typeof value === "string" && redactedCredential(ownerId, value) === credential);
      return kept ?? credential;
    }
    const kept = valueAt(stored, path);
    return typeof kept === "string" && redactUrl(ownerId, kept, kind === "webhookUrl") === credential ? kept : credential;
  });
}

const RULES: Record<Kind, string> = {
  header: "is a fingerprint of a credential, as answers to read keys show it, not a value: send the value itself",
  url: "has a fingerprint of a credential in place of its user info, as answers to read keys show it: send the URL itself",
  webhookUrl: "has a fingerprint of a credential in place of its user info or its path, as answers to read keys show it: send the URL itself",
};

/** Each credential of `value` that is shown redacted, named under `prefix` (`monitor.headers[0].value`). */
export function redactedCredentialFields(value: unknown, prefix: string): FieldViolation[] {
  const found: FieldViolation[] = [];
  mapCredentials(value, (credential, kind, path) => {
    if (isRedacted(credential, kind)) found.push({ field: fieldPath(prefix, path), rule: RULES[kind] });
    return credential;
  });
  return found;
}

/**
 * Refuses a redacted credential (what restoreCredentials could not take back):
 * stored, it would stand in for the credential it hides.
 * @throws ValidationError naming each one under `prefix`
 */
export function rejectRedactedCredentials(value: unknown, prefix: string): void {
  const found = redactedCredentialFields(value, prefix);
  if (found.length > 0) throw new ValidationError(found);
}
