// Reading a Prometheus text exposition (an agent's /metrics, blackbox_exporter's /probe). The benchmarks
// and the tests that check the metrics both read it here.

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
