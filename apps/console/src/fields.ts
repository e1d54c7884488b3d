import { PASSWORD_LENGTH_RULE, emailField, passwordLengthOk, userNameField } from "@vigil/domain/accounts";
import type { ZodType } from "zod";

/** The first rule `value` breaks, as the API words it; null when it keeps them. */
function ruleBroken(schema: ZodType, value: unknown): string | null {
  const result = schema.safeParse(value);
  return result.success ? null : (result.error.issues[0]?.message ?? null);
}

export const emailRule = (value: string) => ruleBroken(emailField(), value);
export const nameRule = (value: string) => ruleBroken(userNameField(), value);
export const requiredRule = (value: string) => (value === "" ? "must not be empty" : null);

type PasswordRules = typeof import("@vigil/domain/passwords");
let passwordRules: Promise<PasswordRules | null> | null = null;

/**
 * The common-password list is ~200 KB gzipped: it is fetched only when a page
 * asks for a new password (loadPasswordRules on focus), never with the first
 * page. Until it arrives, and should it fail, the length rule is checked here
 * and the list is left to the API, whose message the form then shows.
 */
export function loadPasswordRules(): Promise<PasswordRules | null> {
  passwordRules ??= import("@vigil/domain/passwords").catch(() => null);
  return passwordRules;
}

export async function newPasswordRule(value: string): Promise<string | null> {
  if (!passwordLengthOk(value)) return PASSWORD_LENGTH_RULE;
  const rules = await loadPasswordRules();
  return rules ? ruleBroken(rules.newPasswordField(), value) : null;
}
