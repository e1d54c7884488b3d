import type { NumberComparator, RecordComparator, RecordType, StringComparator } from "./comparators";
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

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * Orders two strings for gt/gte/lt/lte: numerically when both are numbers
 * ("10" > "9"), otherwise by Unicode code points ("b" > "a").
 */
function order(actual: string, target: string): number {
  if (NUMERIC.test(actual) && NUMERIC.test(target)) return Math.sign(Number(actual) - Number(target));
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

const quote = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);

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
