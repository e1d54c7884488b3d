import { compareNumber, compareRecords, compareString, failedHttpAssertions } from "../src";

describe("number comparators", () => {
  it.each([
    ["eq", 200, 200, true],
    ["eq", 201, 200, false],
    ["neq", 201, 200, true],
    ["neq", 200, 200, false],
    ["gt", 201, 200, true],
    ["gt", 200, 200, false],
    ["gte", 200, 200, true],
    ["gte", 199, 200, false],
    ["lt", 199, 200, true],
    ["lt", 200, 200, false],
    ["lte", 200, 200, true],
    ["lte", 201, 200, false],
  ] as const)("%s: %i vs %i is %s", (comparator, actual, target, expected) => {
    expect(compareNumber(actual, comparator, target)).toBe(expected);
  });
});

describe("string comparators", () => {
  it.each([
    ["contains", "all ok here", "ok", true],
    ["contains", "ALL OK", "ok", false],
    ["not_contains", "fine", "error", true],
    ["not_contains", "an error", "error", false],
    ["eq", "ok", "ok", true],
    ["eq", "ok ", "ok", false],
    ["neq", "ok ", "ok", true],
    ["neq", "ok", "ok", false],
    ["empty", "", "", true],
    ["empty", " ", "", false],
    ["not_empty", "x", "", true],
    ["not_empty", "", "", false],
    ["gt", "10", "9", true],
    ["gt", "b", "a", true],
    ["gt", "a", "b", false],
    ["gte", "1e3", "1000", true],
    ["lt", "-2.5", "0", true],
    ["lt", "abc", "abd", true],
    ["lte", "9", "10", true],
    ["lte", "10", "9", false],
  ] as const)("%s: %j vs %j is %s", (comparator, actual, target, expected) => {
    expect(compareString(actual, comparator, target)).toBe(expected);
  });

  it.each([
    ["empty", true],
    ["neq", true],
    ["not_contains", true],
    ["not_empty", false],
    ["eq", false],
    ["contains", false],
    ["gt", false],
    ["lte", false],
  ] as const)("a missing header with %s is %s", (comparator, expected) => {
    expect(compareString(undefined, comparator, "x")).toBe(expected);
  });
});

describe("record comparators", () => {
  const a = ["192.0.2.1", "192.0.2.2"];
  it.each([
    [a, "A", "eq", "192.0.2.2", true],
    [a, "A", "eq", "192.0.2.3", false],
    [a, "A", "neq", "192.0.2.3", true],
    [a, "A", "neq", "192.0.2.1", false],
    [a, "A", "contains", "192.0.2.", true],
    [a, "A", "not_contains", "10.", true],
    [a, "A", "not_contains", "192.", false],
    [[], "AAAA", "neq", "::1", true],
    [[], "AAAA", "eq", "::1", false],
    [["2001:DB8::1"], "AAAA", "eq", "2001:db8::1", true],
    [["Target.Example.com."], "CNAME", "eq", "target.example.com", true],
    [["mail.example.com"], "MX", "eq", "MAIL.example.com.", true],
    [["v=spf1 -all"], "TXT", "contains", "spf1", true],
    [["v=spf1 -all"], "TXT", "eq", "V=SPF1 -ALL", false],
  ] as const)("%j %s %s %j is %s", (records, type, comparator, target, expected) => {
    expect(compareRecords(records, type, comparator, target)).toBe(expected);
  });
});

describe("HTTP assertions", () => {
  const observed = { statusCode: 301, body: "moved", headers: { location: "/new" } };
  it("requires 2xx without status code assertions", () => {
    expect(failedHttpAssertions(observed, { statusCodeAssertions: [], bodyAssertions: [], headerAssertions: [] })).toEqual([
      "status 301 is not 2xx",
    ]);
    expect(
      failedHttpAssertions(observed, {
        statusCodeAssertions: [{ target: 301, comparator: "eq" }],
        bodyAssertions: [{ target: "moved", comparator: "eq" }],
        headerAssertions: [{ key: "Location", target: "/new", comparator: "eq" }],
      }),
    ).toEqual([]);
  });
});
