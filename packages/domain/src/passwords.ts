import { dictionary } from "@zxcvbn-ts/language-common";
import { z } from "zod";
import { PASSWORD_LENGTH_RULE, passwordLengthOk } from "./accounts";
import { NOT_STORABLE_RULE, isStorableText, typed } from "./rules";

/**
 * The rule a new password keeps besides its length: not one of the ~49,000
 * most common passwords of zxcvbn-ts' list. A module of its own, kept out of
 * `@vigil/domain`'s index, so that only what checks new passwords loads the
 * list (about 8 MiB of heap).
 */
const COMMON = new Set(dictionary["passwords-common"]);

export const COMMON_PASSWORD_RULE = "is one of the most common passwords; choose another";

export const isCommonPassword = (password: string) => COMMON.has(password.toLowerCase());

/** A password a person chooses: its length, storable, and not a common one. */
export const newPasswordField = () =>
  z
    .string(typed("a string"))
    .refine(passwordLengthOk, PASSWORD_LENGTH_RULE)
    .refine(isStorableText, NOT_STORABLE_RULE)
    .refine((password) => !isCommonPassword(password), COMMON_PASSWORD_RULE);
