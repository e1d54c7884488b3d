import { parser } from "@prometheus-io/lezer-promql";

// The exposition is read where the benchmarks read it too.
export { parseExposition, sampleValue, type Sample } from "../../../../bench/support/prometheus";

/** Grafana's variables, replaced by values PromQL accepts, so that dashboard queries parse. */
const GRAFANA_VARIABLES: [RegExp, string][] = [
  [/\$__(rate_interval|interval|range)/g, "5m"],
  [/\$\{?[a-zA-Z_]+\}?/g, "x"],
];

/** The metric names a PromQL expression selects (parsed with the Prometheus project's own grammar). */
export function metricNamesIn(expression: string): string[] {
  const source = GRAFANA_VARIABLES.reduce((text, [pattern, value]) => text.replace(pattern, value), expression);
  const names: string[] = [];
  parser.parse(source).iterate({
    enter(node) {
      if (node.type.isError) throw new Error(`not valid PromQL at ${node.from}: ${expression}`);
      if (node.name === "Identifier" && node.node.parent?.name === "VectorSelector") names.push(source.slice(node.from, node.to));
    },
  });
  return names;
}
