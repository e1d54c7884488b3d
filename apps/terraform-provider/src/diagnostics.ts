import type { MessageInitShape } from "@bufbuild/protobuf";
import { VigilError } from "@vigil/client";
import { ValidationError } from "@vigil/domain";
import { Diagnostic_Severity, type DiagnosticSchema } from "./gen/tfplugin6_pb.js";
import { locateField, type BlockSpec, type PathStep } from "./schema/index.js";
import type { TfValue } from "./values/index.js";

export type Diagnostic = MessageInitShape<typeof DiagnosticSchema>;

/** A rule a value breaks, naming the field as the domain does, relative to the resource (`openTelemetry.endpoint`). */
export interface Violation {
  field: string;
  rule: string;
}

/** Raised by resources for a failure that is the user's to fix; becomes an error diagnostic. */
export class ProviderError extends Error {
  constructor(
    readonly summary: string,
    readonly detail: string,
  ) {
    super(`${summary}: ${detail}`);
  }
}

export const errorDiagnostic = (summary: string, detail: string, steps: PathStep[] = []): Diagnostic => ({
  severity: Diagnostic_Severity.ERROR,
  summary,
  detail,
  attribute: steps.length
    ? {
        steps: steps.map((step) =>
          "attribute" in step
            ? { selector: { case: "attributeName" as const, value: step.attribute } }
            : { selector: { case: "elementKeyInt" as const, value: BigInt(step.index) } },
        ),
      }
    : undefined,
});

/** The domain's field path without its message prefix: `monitor.openTelemetry.endpoint` -> `openTelemetry.endpoint`. */
const withoutPrefix = (field: string) => field.replace(/^[^.[]+\.?/, "");

/** The domain's violations, as diagnostics pointing at the attribute; those on values not known yet are dropped. */
export function violationDiagnostics(block: BlockSpec, violations: Violation[], config: TfValue): Diagnostic[] {
  return violations.flatMap(({ field, rule }) => {
    const location = locateField(block, field, config);
    if (location.unknown) return [];
    const name = location.steps.filter((step) => "attribute" in step).map((step) => (step as { attribute: string }).attribute).join(".");
    return [errorDiagnostic(`Invalid value for ${name || "the resource"}`, `${name || field} ${rule}`, location.steps)];
  });
}

/**
 * The violations a domain parse function reports, relative to the resource;
 * none when it accepts the input. `prefixed: false` for a parse naming fields
 * without a message prefix (parsePage's `limit`).
 */
export function domainViolations(parse: () => unknown, { prefixed = true } = {}): Violation[] {
  try {
    parse();
    return [];
  } catch (error) {
    if (error instanceof ValidationError) {
      return error.violations.map((v) => ({ field: prefixed ? withoutPrefix(v.field) : v.field, rule: v.rule }));
    }
    throw error;
  }
}

/** Anything an operation failed with, as diagnostics: field violations on their attributes, the rest as one error. */
export function failureDiagnostics(action: string, block: BlockSpec, error: unknown, config: TfValue): Diagnostic[] {
  if (error instanceof ProviderError) return [errorDiagnostic(error.summary, error.detail)];
  const violations =
    error instanceof ValidationError ? error.violations : error instanceof VigilError ? error.violations : [];
  if (violations.length > 0) {
    return violationDiagnostics(block, violations.map((v) => ({ field: withoutPrefix(v.field), rule: v.rule })), config);
  }
  const detail = error instanceof VigilError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
  return [errorDiagnostic(`Could not ${action}`, detail)];
}
