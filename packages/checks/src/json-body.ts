import { excerpt, jsonNodesSatisfy } from "@vigil/domain/assertions";
import { CHECK_RULES } from "@vigil/domain/check-rules";
import { queryJson } from "@vigil/domain/json-path";
import type { JsonBodyAssertion } from "@vigil/domain/monitor-config";

const shown = (value: string) => JSON.stringify(excerpt(value));
/** A selected node in an error: its JSON text (strings quoted, so "1" and 1 differ). */
const nodeText = (value: unknown) => excerpt(JSON.stringify(value));

/** What an assertion asks, as its error says it: `eq "ok"`, `not_exists`. */
const wantedOf = (a: JsonBodyAssertion) => (a.comparator === "exists" || a.comparator === "not_exists" ? a.comparator : `${a.comparator} ${shown(a.target)}`);
const describe = (a: JsonBodyAssertion) => `${a.path} ${wantedOf(a)}`;

/**
 * The JSON body assertions that fail, as sentences for the result's error.
 * The body is parsed once for all of them, and not at all for a monitor
 * without any (most monitors), so they cost nothing where unused.
 */
export function failedJsonAssertions(body: string, assertions: readonly JsonBodyAssertion[]): string[] {
  if (assertions.length === 0) return [];
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch (error) {
    // The reader stops at maxBodyBytes, and a JSON document cut there does not parse either.
    const why =
      body.length === 0
        ? "it is empty"
        : Buffer.byteLength(body) >= CHECK_RULES.maxBodyBytes
          ? `only its first ${CHECK_RULES.maxBodyBytes} bytes are read`
          : (error as Error).message;
    return [`body is not JSON (${why}), so every JSON assertion fails: ${assertions.map(describe).join(", ")}`];
  }
  const failures: string[] = [];
  for (const a of assertions) {
    let values: unknown[];
    try {
      values = queryJson(a.path, document);
    } catch (error) {
      // Saved queries parse (the API validates them); what remains is a document nested beyond json-p3's recursion limit.
      failures.push(`${a.path} cannot be evaluated: ${(error as Error).message}`);
      continue;
    }
    if (jsonNodesSatisfy(values, a.comparator, a.target)) continue;
    const wanted = wantedOf(a);
    if (values.length === 0) failures.push(`${a.path} selects nothing, which does not satisfy ${wanted}`);
    else if (values.length === 1) failures.push(`${a.path} ${nodeText(values[0])} does not satisfy ${wanted}`);
    else failures.push(`${a.path} selects ${values.length} values (${values.slice(0, 3).map(nodeText).join(", ")}${values.length > 3 ? ", ..." : ""}); every one must satisfy ${wanted}`);
  }
  return failures;
}
