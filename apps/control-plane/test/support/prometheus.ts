import { parser } from "@prometheus-io/lezer-promql";

/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a /metrics answer (comments skipped). */
export function parseExposition(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [, name, labels = "", value] = SAMPLE.exec(line) ?? [];
      if (!name || value === undefined) throw new Error(`not a sample line: ${line}`);
      return { name, labels: Object.fromEntries([...labels.matchAll(LABEL)].map(([, key, v]) => [key!, v!])), value: Number(value) };
    });
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))?.value;
}

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
