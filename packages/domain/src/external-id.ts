import { text } from "./rules";
import { parseOrThrow } from "./validation";

export const EXTERNAL_ID_MAX_CHARS = 256;

/** Letters, digits and . _ : / -, starting with a letter or digit: safe in URLs, shells and YAML keys. */
export const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

/**
 * A vigil.yaml entry's key, and the file's `project`: `apply` records `<project>/<key>` as the
 * external id of what it creates, so the pattern is a part of the external id's and the two
 * joined by `/` fit its length.
 */
export const ENTRY_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const ENTRY_KEY_MAX_CHARS = Math.floor((EXTERNAL_ID_MAX_CHARS - "/".length) / 2);

export const externalIdRule = text(EXTERNAL_ID_MAX_CHARS).refine(
  (value) => value === "" || EXTERNAL_ID_PATTERN.test(value),
  "must be letters, digits and . _ : / -, starting with a letter or digit",
);

/**
 * A resource's external id (the caller's own identifier, see
 * docs/api.md "External ids"): null for none, which an empty string means.
 * @throws ValidationError naming `field`
 */
export function parseExternalId(value: string | undefined, field: string): string | null {
  const parsed: string = parseOrThrow(externalIdRule, value ?? "", field);
  return parsed === "" ? null : parsed;
}
