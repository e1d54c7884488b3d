import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

/**
 * The workspace's own code, apps and packages alike, imports in one direction
 * only: a circle (a module importing, through any chain, a module that imports
 * it) means neither side can be read, tested or moved without the other.
 * Beside deploy-files.test.ts, the other check of the workspace as a whole.
 */

interface ImportGraph {
  imports: Record<string, string[]>;
  circles: string[][];
  unresolved: string[];
}

describe("Imports between the workspace's modules", () => {
  let graph: ImportGraph;
  beforeAll(() => {
    const output = execFileSync(process.execPath, ["--import", "tsx", resolve(__dirname, "support/import-graph.ts")], { encoding: "utf8" });
    graph = JSON.parse(output) as ImportGraph;
  });

  it("form no circle, type-only imports included", () => {
    // An import madge could not resolve is an edge it cannot see: only outside packages may be missing.
    expect(graph.unresolved.filter((name) => name.startsWith(".") || name.startsWith("@vigil/"))).toEqual([]);
    expect(graph.imports["apps/cli/src/code/load.ts"]).toContain("packages/domain/src/index.ts");
    expect(graph.circles.map((circle) => [...circle, circle[0]].join(" → "))).toEqual([]);
  });

  it("go from alerting to the status, never back: the status decides transitions, alerting makes them events", () => {
    const status = "apps/control-plane/src/status/";
    const alerting = "apps/control-plane/src/alerting/";
    const back = Object.entries(graph.imports)
      .filter(([from]) => from.startsWith(status))
      .flatMap(([from, to]) => to.filter((target) => target.startsWith(alerting)).map((target) => `${from} → ${target}`));
    expect(back).toEqual([]);
  });
});
