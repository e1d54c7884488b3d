import {
  LIMITS,
  ValidationError,
  absorbingIncident,
  dependenciesFirst,
  dependencyCycle,
  dependencyViolations,
  parseHeartbeatConfig,
  parseMonitorConfig,
  type DependencyNode,
  type DependencyState,
} from "../src";

/** A workspace's monitors from `edges` ("a>b,c": a depends on b and c), each named after its id in capitals. */
function graphOf(...edges: string[]): Map<string, DependencyNode> {
  const graph = new Map<string, DependencyNode>();
  for (const edge of edges) {
    const [id, deps = ""] = edge.split(">") as [string, string?];
    graph.set(id, { name: id.toUpperCase(), dependsOn: deps === "" ? [] : deps.split(",") });
  }
  return graph;
}

describe("dependsOn's cycles", () => {
  it.each<[string, string[], string, string[], string[] | null]>([
    ["none in a chain", ["a>", "b>a", "c>b"], "a", [], null],
    ["none when a depends on what depends on nothing", ["a>", "b>", "c>b"], "a", ["c"], null],
    ["two monitors naming each other", ["a>", "b>a"], "a", ["b"], ["a", "b", "a"]],
    ["through three", ["a>", "b>a", "c>b"], "a", ["c"], ["a", "c", "b", "a"]],
    ["the shortest of two", ["a>", "b>a", "c>b", "d>c"], "a", ["d", "b"], ["a", "b", "a"]],
    ["none in a diamond", ["a>", "b>a", "c>a", "d>b,c"], "d", ["b", "c"], null],
  ])("%s", (_name, edges, id, dependsOn, cycle) => {
    expect(dependencyCycle(id, dependsOn, graphOf(...edges))).toEqual(cycle);
  });

  it("names the cycle monitor by monitor, with names and ids", () => {
    expect(dependencyViolations("a", ["c"], graphOf("a>", "b>a", "c>b"))).toEqual([
      { field: "monitor.dependsOn", rule: "makes a cycle: A (a) → C (c) → B (b) → A (a)" },
    ]);
  });

  it("refuses the monitor itself and ids of no monitor of the workspace, each at its place", () => {
    expect(dependencyViolations("a", ["b", "a", "zz"], graphOf("a>", "b>"))).toEqual([
      { field: "monitor.dependsOn[1]", rule: "must not name the monitor itself" },
      { field: "monitor.dependsOn[2]", rule: "names no monitor of this workspace: zz" },
    ]);
    // A monitor being created has no id yet, and no dependents to close a cycle with.
    expect(dependencyViolations(undefined, ["b"], graphOf("b>"))).toEqual([]);
  });
});

describe("dependsOn in every kind's schema", () => {
  const refusal = (parse: () => unknown) => {
    try {
      parse();
    } catch (error) {
      if (error instanceof ValidationError) return error.message;
      throw error;
    }
    throw new Error("accepted");
  };
  const tcp = (dependsOn: unknown) => parseMonitorConfig("tcp", { name: "db", uri: "db.example.com:5432", periodicity: "1m", dependsOn });
  const heartbeat = (dependsOn: unknown) => parseHeartbeatConfig({ name: "nightly", dependsOn });

  it("defaults to none, and keeps the order sent", () => {
    expect(parseMonitorConfig("http", { name: "h", url: "https://example.com", periodicity: "1m" }).dependsOn).toEqual([]);
    expect(parseHeartbeatConfig({ name: "nightly" }).dependsOn).toEqual([]);
    expect(tcp(["b", "a"]).dependsOn).toEqual(["b", "a"]);
  });

  it.each([
    ["tcp", tcp],
    ["heartbeat", heartbeat],
  ] as const)("%s: refuses repeats, more than the limit and what is no id", (_kind, parse) => {
    expect(refusal(() => parse(["a", "a"]))).toContain("monitor.dependsOn[1]: must not repeat a");
    const many = Array.from({ length: LIMITS.dependsOnPerMonitor + 1 }, (_, i) => `m${i}`);
    expect(refusal(() => parse(many))).toContain(`monitor.dependsOn: must have at most ${LIMITS.dependsOnPerMonitor} entries`);
    expect(refusal(() => parse(["a\nb"]))).toContain("monitor.dependsOn[0]");
    expect(refusal(() => parse("a"))).toContain("monitor.dependsOn");
  });
});

describe("which open incident absorbs a failure", () => {
  /** States from "id[:incident]>deps". */
  function states(...specs: string[]): (id: string) => DependencyState | undefined {
    const map = new Map<string, DependencyState>();
    for (const spec of specs) {
      const [head, deps = ""] = spec.split(">") as [string, string?];
      const [id, incident] = head.split(":") as [string, string?];
      map.set(id, { openIncident: incident, dependsOn: deps === "" ? [] : deps.split(",") });
    }
    return (id) => map.get(id);
  }

  it.each<[string, string[], string, { dependency: string; incident: string } | null]>([
    ["a dependency with an open incident", ["root:i1>", "b>root"], "b", { dependency: "root", incident: "i1" }],
    ["none when no dependency has an incident", ["root>", "b>root"], "b", null],
    ["none for a monitor without dependencies", ["b>"], "b", null],
    ["the root's, through a dependency without one (a tree failing from its root)", ["root:i1>", "b>root", "c>b"], "c", { dependency: "root", incident: "i1" }],
    ["the root's, three levels down", ["root:i1>", "b>root", "c>b", "d>c"], "d", { dependency: "root", incident: "i1" }],
    ["the nearest: a dependency's own incident before its dependency's", ["root:i1>", "b:i2>root", "c>b"], "c", { dependency: "b", incident: "i2" }],
    ["the first in dependsOn order among equals", ["x:ix>", "y:iy>", "c>y,x"], "c", { dependency: "y", incident: "iy" }],
    ["none around a cycle it cannot leave", ["a>b", "b>a"], "a", null],
  ])("%s", (_name, specs, id, expected) => {
    expect(absorbingIncident(id, states(...specs))).toEqual(expected);
  });
});

describe("dependencies first", () => {
  it("orders each monitor after those it depends on, keeping the rest in place", () => {
    const deps: Record<string, string[]> = { c: ["b"], b: ["a"], a: [], x: [] };
    expect(dependenciesFirst(["c", "x", "b", "a"], (id) => deps[id] ?? [])).toEqual(["a", "b", "c", "x"]);
    // Through monitors not among them.
    expect(dependenciesFirst(["c", "a"], (id) => deps[id] ?? [])).toEqual(["a", "c"]);
  });
});
