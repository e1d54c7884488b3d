import { z } from "zod";
import { LIMITS } from "./limits";
import { nonEmptyText, requiredLine } from "./rules";

/**
 * People in a workspace (docs/accounts.md): their roles, what each role may
 * do, and how long sessions and invitations last.
 */

/** A member's role in a workspace, from the most to the least trusted. */
export const ROLES = ["owner", "admin", "editor", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/**
 * What a caller may do. `read`: every list and get. `write`: every change to
 * monitors, channels, status pages and incidents. `members` and `keys`:
 * people and API keys of the workspace. `audit`: reading the workspace's audit log
 * (who did what; it names people and keys). `own`: owners, deleting the workspace.
 */
export type Permission = "read" | "write" | "members" | "keys" | "audit" | "own";

const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: ["read", "write", "members", "keys", "audit", "own"],
  admin: ["read", "write", "members", "keys", "audit"],
  editor: ["read", "write"],
  viewer: ["read"],
};

export const roleCan = (role: Role, permission: Permission): boolean => ROLE_PERMISSIONS[role].includes(permission);

/** The API-key scopes a role acts with, as `GET /v1/whoami` shows them: a viewer reads, everyone else writes. */
export const scopesOfRole = (role: Role): ("read" | "write")[] => (roleCan(role, "write") ? ["write"] : ["read"]);

/** Whether a role may give (or take away) `role`: only owners make or unmake owners. */
export const mayAssignRole = (by: Role, role: Role): boolean => roleCan(by, "members") && (role !== "owner" || roleCan(by, "own"));

/** The roles SSO may give a person who joins without a mapped role: not owner, which only an owner gives. */
export const SSO_DEFAULT_ROLES = ROLES.filter((role) => role !== "owner") as [Exclude<Role, "owner">, ...Exclude<Role, "owner">[]];

export const ACCOUNTS = {
  /** A password's length in characters (no other composition rule: NIST SP 800-63B). */
  passwordMinChars: 12,
  passwordMaxChars: 256,
  userNameMaxChars: 100,
  /** A session ends after this long unused (SESSION_IDLE_DAYS)… */
  sessionIdleDays: 7,
  /** …and this long after sign-in whatever its use (SESSION_MAX_DAYS). */
  sessionMaxDays: 30,
  /** How often a session's last use is written: its idle expiry is this precise. */
  sessionTouchSeconds: 60,
  /** An invitation mailed to a person. */
  invitationDays: 7,
  /** The owner invitation printed on the first start. */
  firstOwnerInvitationHours: 24,
  /** Sign-in attempts per client address, and per account, in a window, before 429. */
  signInAttemptsPerAddress: 20,
  signInAttemptsPerAccount: 10,
  signInWindowSeconds: 300,
  /** Mails to one address in an hour, of every kind: invitations, verification links, password resets. */
  mailsPerAddressPerHour: 5,
  /** Password-reset requests from one client address in an hour. */
  passwordResetsPerAddressPerHour: 20,
  /** How long a mailed email-verification link works… */
  emailVerificationHours: 72,
  /** …and a mailed password-reset link. */
  passwordResetMinutes: 60,
  /** Second factor: TOTP (RFC 6238) with 6 digits in 30-second steps, accepted one step early or late. */
  totpDigits: 6,
  totpPeriodSeconds: 30,
  totpWindowSteps: 1,
  /** Single-use recovery codes made when the second factor is enabled (or again on request). */
  recoveryCodes: 10,
} as const;

/** A TOTP code, spaces dropped (a recovery code is longer and holds letters). */
export const isTotpCode = (typed: string) => new RegExp(`^\\d{${ACCOUNTS.totpDigits}}$`).test(typed.replace(/\s+/g, ""));

export const totpCodeField = () =>
  z.preprocess(
    (value) => (typeof value === "string" ? value.replace(/\s+/g, "") : value),
    z.string({ error: "must be a string" }).refine(isTotpCode, `must be the ${ACCOUNTS.totpDigits}-digit code of your authenticator app`),
  );

/** The cookie that carries a person's session. */
export const SESSION_COOKIE = "vigil_session";
/** The header a session names the workspace it acts in with (default: the user's first). */
export const WORKSPACE_HEADER = "x-vigil-workspace";

/** An email address as Vigil keys it: trimmed and lower-case, so that one person has one account. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const emailField = () =>
  z.preprocess((value) => (typeof value === "string" ? normalizeEmail(value) : value), nonEmptyText(LIMITS.emailMaxChars).pipe(z.email("must be an email address")));

export const userNameField = () => requiredLine(ACCOUNTS.userNameMaxChars);

export const roleField = () => z.enum(ROLES, { error: `must be one of ${ROLES.join(", ")}` });

/** The length rule of a new password; the common-password rule is in `@vigil/domain/passwords`. */
export const PASSWORD_LENGTH_RULE = `must be ${ACCOUNTS.passwordMinChars} to ${ACCOUNTS.passwordMaxChars} characters`;
export const passwordLengthOk = (password: string) =>
  [...password].length >= ACCOUNTS.passwordMinChars && [...password].length <= ACCOUNTS.passwordMaxChars;
