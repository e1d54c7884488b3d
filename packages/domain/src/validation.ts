import type { z } from "zod";

export interface FieldViolation {
  /** Path of the field in the request, e.g. `monitor.headers[3].key`. */
  field: string;
  /** The rule it breaks, e.g. `must be at most 256 characters`. */
  rule: string;
}

/** Input that breaks a rule of the contract; answered as invalid_argument / HTTP 400. */
export class ValidationError extends Error {
  constructor(readonly violations: FieldViolation[]) {
    super(violations.map((v) => `${v.field}: ${v.rule}`).join("; "));
    this.name = "ValidationError";
  }

  static of(field: string, rule: string): ValidationError {
    return new ValidationError([{ field, rule }]);
  }
}

/** Throws `violations` of a rule across fields, their fields named under `prefix`; nothing when there are none. */
export function throwViolations(violations: readonly FieldViolation[], prefix: string): void {
  if (violations.length > 0) throw new ValidationError(violations.map((v) => ({ field: `${prefix}.${v.field}`, rule: v.rule })));
}

export function fieldPath(prefix: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)),
    prefix,
  );
}

/** Parses with a zod schema; violations name fields under `prefix`. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const violations = result.error.issues.map((issue) => ({ field: fieldPath(prefix, issue.path), rule: issue.message }));
  // Several checks of one field may fail with the same rule (a huge number is neither safe nor in range).
  const unique = violations.filter((v, i) => violations.findIndex((w) => w.field === v.field && w.rule === v.rule) === i);
  throw new ValidationError(unique);
}

/** Reads settings from the environment with a zod schema; a bad value stops start-up naming the variable and its rule. */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
  throw new Error(`invalid environment: ${problems}`);
}

/**
 * A value the client sent, as an error message shows it: as it is when it
 * reads like a name, else JSON-quoted (so a control character shows as an
 * escape) and cut to 64 characters, so that a huge or hostile value never
 * makes a huge error (gRPC sends it in a trailer, whose size HTTP/2 bounds).
 */
export function quoted(value: string): string {
  if (/^[\w.-]{1,64}$/.test(value)) return value;
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}
