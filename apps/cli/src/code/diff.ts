import { isDeepStrictEqual } from "node:util";

/** One field whose value the file changes. Sensitive values are never shown, only that they change. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
  sensitive?: boolean;
}

/** Lists that are sets: their order carries no meaning, so a reordering is no change. */
const sorted = (value: unknown) => (Array.isArray(value) ? [...value].map(String).sort() : value);

/**
 * The fields of `to` whose values differ from `from`, in the order of
 * `fields`; fields named in `sets` compare without order.
 */
export function diffFields(from: object, to: object, fields: readonly string[], sets: readonly string[] = []): FieldChange[] {
  const [before, after] = [from as Record<string, unknown>, to as Record<string, unknown>];
  return fields.flatMap((field) => {
    const [a, b] = sets.includes(field) ? [sorted(before[field]), sorted(after[field])] : [before[field], after[field]];
    return isDeepStrictEqual(a, b) ? [] : [{ field, from: before[field], to: after[field] }];
  });
}

/** A sensitive value the file gives, compared through the fingerprint the API answers. */
export function diffSecret(field: string, given: string | undefined, storedFingerprint: string, fingerprintOf: (value: string) => string): FieldChange[] {
  if (given === undefined || (storedFingerprint !== "" && fingerprintOf(given) === storedFingerprint)) return [];
  return [{ field, from: storedFingerprint ? "(sensitive)" : "(none)", to: "(sensitive)", sensitive: true }];
}
