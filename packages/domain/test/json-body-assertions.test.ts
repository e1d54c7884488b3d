import { LIMITS, ValidationError, compareJsonValue, jsonComparatorCodec, jsonNodesSatisfy, jsonPathProblem, parseMonitorConfig, queryJson } from "../src";

const base = { name: "api", periodicity: "1m", url: "https://api.example.com/health" };

/** The violations of an HTTP monitor with these JSON body assertions, as "field: rule". */
function violations(jsonBodyAssertions: unknown): string[] {
  try {
    parseMonitorConfig("http", { ...base, jsonBodyAssertions });
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.violations.map((v) => `${v.field}: ${v.rule}`);
  }
}

describe("validation of JSON body assertions", () => {
  it("defaults to none, so existing monitors keep behaving as they did", () => {
    expect(parseMonitorConfig("http", base).jsonBodyAssertions).toEqual([]);
  });

  it("accepts RFC 9535 queries, and exists / not_exists without a target", () => {
    const config = parseMonitorConfig("http", {
      ...base,
      jsonBodyAssertions: [
        { path: "$.status", comparator: "eq", target: "ok" },
        { path: "$.services[?@.critical == true].healthy", comparator: "eq", target: "true" },
        { path: "$..errors", comparator: "not_exists" },
        { path: "$['odd key'][0]", comparator: "exists" },
        { path: "$.uptime", comparator: "gte", target: "99.9" },
      ],
    });
    expect(config.jsonBodyAssertions[2]).toEqual({ path: "$..errors", comparator: "not_exists", target: "" });
  });

  it.each([
    ["status", "expected '$'"],
    ["$.a[", "unclosed bracketed selection"],
    ["$.a.length()", "at offset 10"],
    ["", "must be a JSONPath query"],
  ])("refuses the query %j naming monitor.jsonBodyAssertions[i].path", (path, why) => {
    const found = violations([
      { path: "$.ok", comparator: "exists" },
      { path, comparator: "eq", target: "x" },
    ]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^monitor\.jsonBodyAssertions\[1\]\.path: must be a JSONPath query \(RFC 9535\)/);
    expect(found[0]).toContain(why);
  });

  it("does not echo a long query back in its error", () => {
    const path = `$.${"a".repeat(500)}[`;
    expect(violations([{ path, comparator: "exists" }])[0]!.length).toBeLessThan(200);
  });

  it("refuses a target for exists and not_exists, and a target that is not a number for the ordering comparators", () => {
    expect(violations([{ path: "$.a", comparator: "exists", target: "x" }])).toEqual([
      "monitor.jsonBodyAssertions[0].target: must be empty: exists takes no target",
    ]);
    expect(violations([{ path: "$.a", comparator: "lt", target: "soon" }])).toEqual([
      "monitor.jsonBodyAssertions[0].target: must be a number: lt compares numbers",
    ]);
  });

  it("refuses an unknown comparator, more than the limit, and an over-long path", () => {
    expect(violations([{ path: "$.a", comparator: "matches", target: "x" }])[0]).toMatch(/^monitor\.jsonBodyAssertions\[0\]\.comparator: must be one of contains, .*exists, not_exists$/);
    const many = Array.from({ length: LIMITS.assertionsPerList + 1 }, () => ({ path: "$.a", comparator: "exists" }));
    expect(violations(many)).toEqual([`monitor.jsonBodyAssertions: must have at most ${LIMITS.assertionsPerList} entries`]);
    expect(violations([{ path: `$.${"a".repeat(LIMITS.jsonPathMaxChars)}`, comparator: "exists" }])).toEqual([
      `monitor.jsonBodyAssertions[0].path: must be at most ${LIMITS.jsonPathMaxChars} characters`,
    ]);
  });

  it("maps the proto comparators onto the domain's names", () => {
    expect(jsonComparatorCodec.values).toEqual(["contains", "not_contains", "eq", "neq", "empty", "not_empty", "gt", "gte", "lt", "lte", "exists", "not_exists"]);
  });

  it("says nothing about a query that parses", () => {
    expect(jsonPathProblem("$.items[0:2]")).toBeUndefined();
    // json-p3 quotes the first UTF-16 unit of an astral character: half a pair, which no answer can carry.
    expect(jsonPathProblem("\u{223FE}")).toBe("must be a JSONPath query (RFC 9535) such as $.status: expected '$', found '\uFFFD' at offset 0");
  });
});

describe("comparing JSON values with a string target", () => {
  it.each([
    ["ok", "eq", "ok", true],
    [1, "eq", "1.0", true],
    [1, "eq", "1", true],
    ["1", "eq", "1.0", false],
    [true, "eq", "true", true],
    [false, "neq", "true", true],
    [null, "eq", "null", true],
    [null, "empty", "", true],
    ["", "empty", "", true],
    [[], "empty", "", true],
    [{}, "empty", "", true],
    [0, "empty", "", false],
    [false, "not_empty", "", true],
    [{ a: 1 }, "contains", '"a":1', true],
    ["a deploy error", "not_contains", "error", false],
    [10, "gt", "9", true],
    ["10", "gt", "9", true],
    ["b", "gt", "a", false],
    [true, "gte", "0", false],
    [null, "lt", "1", false],
    [99.95, "gte", "99.9", true],
  ] as const)("%j %s %j is %s", (value, comparator, target, expected) => {
    expect(compareJsonValue(value, comparator, target)).toBe(expected);
  });

  it("requires every selected node to satisfy a comparator, and at least one", () => {
    expect(jsonNodesSatisfy([true, true], "eq", "true")).toBe(true);
    expect(jsonNodesSatisfy([true, false], "eq", "true")).toBe(false);
    expect(jsonNodesSatisfy([], "eq", "true")).toBe(false);
    expect(jsonNodesSatisfy([], "neq", "down")).toBe(false);
    expect(jsonNodesSatisfy([], "not_exists", "")).toBe(true);
    expect(jsonNodesSatisfy([null], "exists", "")).toBe(true);
    expect(jsonNodesSatisfy([null], "not_exists", "")).toBe(false);
  });

  it("selects nodes as RFC 9535 says", () => {
    const document = { items: [{ n: 1 }, { n: 5 }, { n: 9 }], "odd key": "x" };
    expect(queryJson("$.items[?@.n > 2].n", document)).toEqual([5, 9]);
    expect(queryJson("$['odd key']", document)).toEqual(["x"]);
    expect(queryJson("$.missing", document)).toEqual([]);
  });
});
