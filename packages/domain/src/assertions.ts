import type { JsonComparator, NumberComparator, RecordComparator, RecordType, StringComparator } from "./comparators";
import { isNumericText } from "./rules";
import type { BodyAssertion, HeaderAssertion, RecordAssertion, StatusCodeAssertion } from "./monitor-config";

/**
 * What every comparator means, for every kind of check. The agent evaluates
 * assertions with these functions; docs/checks.md states the same rules.
 */

export function compareNumber(actual: number, comparator: NumberComparator, target: number): boolean {
  switch (comparator) {
    case "eq":
      return actual === target;
    case "neq":
      return actual !== target;
    case "gt":
      return actual > target;
    case "gte":
      return actual >= target;
    case "lt":
      return actual < target;
    case "lte":
      return actual <= target;
  }
}

/**
 * Orders two strings for gt/gte/lt/lte: numerically when both are numbers
 * ("10" > "9"), otherwise by Unicode code points ("b" > "a").
 */
function order(actual: string, target: string): number {
  if (isNumericText(actual) && isNumericText(target)) return Math.sign(Number(actual) - Number(target));
  return actual < target ? -1 : actual > target ? 1 : 0;
}

/**
 * Compares a response body or header value. `actual` is undefined for a
 * header the response does not have: it is empty for empty/not_empty, and
 * fails every other comparator except neq and not_contains.
 */
export function compareString(actual: string | undefined, comparator: StringComparator, target: string): boolean {
  if (comparator === "empty") return (actual ?? "") === "";
  if (comparator === "not_empty") return (actual ?? "") !== "";
  if (actual === undefined) return comparator === "neq" || comparator === "not_contains";
  switch (comparator) {
    case "contains":
      return actual.includes(target);
    case "not_contains":
      return !actual.includes(target);
    case "eq":
      return actual === target;
    case "neq":
      return actual !== target;
    case "gt":
      return order(actual, target) > 0;
    case "gte":
      return order(actual, target) >= 0;
    case "lt":
      return order(actual, target) < 0;
    case "lte":
      return order(actual, target) <= 0;
  }
}

/** A JSON value as the text comparators read it: a string as it is, anything else as its JSON text (`42`, `true`, `null`, `{"a":1}`). */
const jsonText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/** null, "", [] and {}: what an API sends for "nothing here". */
function isEmptyJson(value: unknown): boolean {
  if (value === null || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value as object).length === 0;
}

/** A number, or a string holding one (APIs often send amounts as strings); anything else cannot be ordered. */
function jsonNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  return typeof value === "string" && isNumericText(value) ? Number(value) : undefined;
}

/**
 * Compares one node a JSONPath query selected with an assertion's target:
 * gt/gte/lt/lte compare numbers (the target is one; a node that is not
 * fails); eq/neq compare a number node numerically when the target is a
 * number (1 eq "1.0"), anything else as text; contains/not_contains read the
 * node's text; empty holds for null, "", [] and {}.
 */
export function compareJsonValue(value: unknown, comparator: Exclude<JsonComparator, "exists" | "not_exists">, target: string): boolean {
  switch (comparator) {
    case "empty":
      return isEmptyJson(value);
    case "not_empty":
      return !isEmptyJson(value);
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const actual = jsonNumber(value);
      return actual !== undefined && isNumericText(target) && compareNumber(actual, comparator, Number(target));
    }
    case "eq":
    case "neq":
      if (typeof value === "number" && isNumericText(target)) return compareNumber(value, comparator, Number(target));
      return compareString(jsonText(value), comparator, target);
    case "contains":
    case "not_contains":
      return compareString(jsonText(value), comparator, target);
  }
}

/**
 * Whether the nodes a query selected satisfy a comparator: exists and
 * not_exists ask whether there are any; every other comparator must hold for
 * every node (`$.services[*].status eq "up"`: all services up), and fails when
 * there is none, so a query that no longer matches (a renamed field) fails
 * rather than passing on nothing.
 */
export function jsonNodesSatisfy(values: readonly unknown[], comparator: JsonComparator, target: string): boolean {
  if (comparator === "exists") return values.length > 0;
  if (comparator === "not_exists") return values.length === 0;
  return values.length > 0 && values.every((value) => compareJsonValue(value, comparator, target));
}

/** Host names compare without case and without the trailing root dot. */
const RECORD_NORMALIZERS: Record<RecordType, (value: string) => string> = {
  A: (v) => v.trim(),
  AAAA: (v) => v.trim().toLowerCase(),
  CNAME: (v) => v.trim().toLowerCase().replace(/\.$/, ""),
  MX: (v) => v.trim().toLowerCase().replace(/\.$/, ""),
  TXT: (v) => v,
};

/**
 * Compares the records of one type that a lookup returned: eq and contains
 * hold when at least one record matches; neq and not_contains hold when no
 * record matches (so an empty answer satisfies them). MX records are
 * compared by their exchange host, TXT records by their joined text.
 */
export function compareRecords(records: readonly string[], type: RecordType, comparator: RecordComparator, target: string): boolean {
  const normalize = RECORD_NORMALIZERS[type];
  const wanted = normalize(target);
  const values = records.map(normalize);
  switch (comparator) {
    case "eq":
      return values.some((v) => v === wanted);
    case "neq":
      return !values.some((v) => v === wanted);
    case "contains":
      return values.some((v) => v.includes(wanted));
    case "not_contains":
      return !values.some((v) => v.includes(wanted));
  }
}

/** What a check saw or wanted, as its error shows it: cut to 80 characters, so that a huge body makes no huge error. */
export const excerpt = (text: string): string => (text.length > 80 ? `${text.slice(0, 77)}...` : text);
const quote = (value: string) => JSON.stringify(excerpt(value));

/** What an HTTP response showed, for assertions. Header names are lower case. */
export interface HttpObservation {
  statusCode: number;
  body: string;
  headers: Readonly<Record<string, string | undefined>>;
}

/**
 * The HTTP assertions that fail, as sentences for the result's error. Without
 * status code assertions a 2xx status is required.
 */
export function failedHttpAssertions(
  observed: HttpObservation,
  assertions: { statusCodeAssertions: StatusCodeAssertion[]; bodyAssertions: BodyAssertion[]; headerAssertions: HeaderAssertion[] },
): string[] {
  const failures: string[] = [];
  if (assertions.statusCodeAssertions.length === 0) {
    if (observed.statusCode < 200 || observed.statusCode > 299) failures.push(`status ${observed.statusCode} is not 2xx`);
  }
  for (const a of assertions.statusCodeAssertions) {
    if (!compareNumber(observed.statusCode, a.comparator, a.target)) failures.push(`status ${observed.statusCode} is not ${a.comparator} ${a.target}`);
  }
  for (const a of assertions.bodyAssertions) {
    if (!compareString(observed.body, a.comparator, a.target)) failures.push(`body does not satisfy ${a.comparator} ${quote(a.target)}`);
  }
  for (const a of assertions.headerAssertions) {
    const value = observed.headers[a.key.toLowerCase()];
    if (!compareString(value, a.comparator, a.target)) {
      failures.push(`header ${a.key} ${value === undefined ? "(absent)" : quote(value)} does not satisfy ${a.comparator} ${quote(a.target)}`);
    }
  }
  return failures;
}

/** The DNS assertions that fail; `records` holds the answers per record type looked up. */
export function failedRecordAssertions(records: Partial<Record<RecordType, string[]>>, assertions: RecordAssertion[]): string[] {
  return assertions
    .filter((a) => !compareRecords(records[a.record] ?? [], a.record, a.comparator, a.target))
    .map((a) => `${a.record} records ${JSON.stringify(records[a.record] ?? [])} do not satisfy ${a.comparator} ${quote(a.target)}`);
}
