import { isIP } from "./ip";
import { z } from "zod";
import { ROLES, SSO_DEFAULT_ROLES, normalizeEmail, type Role } from "./accounts";
import { typed, httpUrl, oneOf, readableLine, requiredLine, set, text } from "./rules";
import { domainName, isDomainName } from "./hosts";

/** Single sign-on with OpenID Connect (docs/accounts.md, "Single sign-on"). */
export const SSO = {
  issuerUrlMaxChars: 2048,
  clientIdMaxChars: 255,
  clientSecretMaxChars: 1024,
  allowedDomains: 50,
  roleClaimMaxChars: 100,
  roleMappings: 50,
  claimValueMaxChars: 256,
  /** How long a sign-in may take between its start and the provider's callback. */
  flowSeconds: 600,
  /** Sign-ins started per client address in a window (each keeps a pending entry in Redis for flowSeconds), before 429. */
  startsPerAddress: 60,
  startsWindowSeconds: 60,
} as const;

/** The cookie that ties a sign-in to the browser that started it: the callback must come with it (no login CSRF). */
export const SSO_STATE_COOKIE = "vigil_oidc_state";

/** How a session opened by a workspace's single sign-on is recorded (user_sessions.method); "password" otherwise. */
export const PASSWORD_SESSION = "password";
const OIDC_METHOD = "oidc:";
export const oidcSessionMethod = (workspaceId: string) => `${OIDC_METHOD}${workspaceId}`;
/** The workspace whose single sign-on opened a session, if one did. */
export const oidcSessionWorkspace = (method: string): string | undefined => (method.startsWith(OIDC_METHOD) ? method.slice(OIDC_METHOD.length) : undefined);

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);
const isLoopbackHost = (hostname: string) => LOOPBACK_NAMES.has(hostname) || (isIP(hostname) === 4 && hostname.startsWith("127."));

/** An issuer as OpenID Connect Discovery 1.0 allows one: https, no query or fragment; http only for a loopback host (a provider on the same machine). */
export function issuerUrlProblem(value: string): string | null {
  const url = new URL(value);
  if (url.search || url.hash || value.includes("?") || value.includes("#")) return "must have no query or fragment";
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return null;
  return "must be an https:// URL (http:// only for localhost or 127.0.0.1)";
}


const issuerUrl = () =>
  httpUrl(SSO.issuerUrlMaxChars).superRefine((value, ctx) => {
    const problem = issuerUrlProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** SetSsoSettings' fields; an empty client_secret keeps the stored one. */
export const ssoSettingsFields = z
  .object({
    issuer_url: issuerUrl(),
    client_id: requiredLine(SSO.clientIdMaxChars),
    client_secret: text(SSO.clientSecretMaxChars),
    allowed_domains: set(z.preprocess((value) => (typeof value === "string" ? value.trim().toLowerCase() : value), domainName(253))).max(
      SSO.allowedDomains,
      `must have at most ${SSO.allowedDomains} entries`,
    ),
    default_role: oneOf(SSO_DEFAULT_ROLES),
    role_claim: readableLine(SSO.roleClaimMaxChars),
    role_mapping: z
      .record(requiredLine(SSO.claimValueMaxChars), oneOf(ROLES))
      .refine((mapping) => Object.keys(mapping).length <= SSO.roleMappings, `must have at most ${SSO.roleMappings} entries`),
    enforced: z.boolean(),
    enabled: z.boolean(),
  }, typed("the settings"))
  .superRefine((settings, ctx) => {
    if (Object.keys(settings.role_mapping).length > 0 && settings.role_claim === "") {
      ctx.addIssue({ code: "custom", path: ["role_claim"], message: "must name a claim when role_mapping is set" });
    }
    if (settings.enforced && !settings.enabled) ctx.addIssue({ code: "custom", path: ["enforced"], message: "needs enabled: SSO cannot be the only way in while it is off" });
  });
export type SsoSettingsFields = z.output<typeof ssoSettingsFields>;

/** Whether an email may sign in through SSO: its domain is one of `allowed` (lower case), or `allowed` is empty. */
export function emailDomainAllowed(email: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const domain = normalizeEmail(email).split("@").at(-1) ?? "";
  return isDomainName(domain) && allowed.includes(domain);
}

/**
 * The role a claim maps to: the claim is a string or a list of strings, and
 * when several values are mapped the most trusted role wins. Undefined when
 * none is mapped.
 */
export function mappedRole(claim: unknown, mapping: Readonly<Record<string, string>>): Role | undefined {
  const values = (Array.isArray(claim) ? claim : [claim]).filter((value): value is string => typeof value === "string");
  const roles = new Set(values.map((value) => mapping[value]));
  return ROLES.find((role) => roles.has(role));
}
