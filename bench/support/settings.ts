// A benchmark's settings, read from BENCH_* variables: each checked as it is read, so that a typo fails at
// the start naming the variable, and kept, so that a table's "Command:" line is the command that reproduces it.

const used = new Map<string, string>();

function raw(name: string): string | undefined {
  const value = process.env[`BENCH_${name}`];
  return value === "" ? undefined : value;
}

function number(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`BENCH_${name} must be a number of 0 or more, not ${JSON.stringify(text)}`);
  return value;
}

/** BENCH_<name> as a number (`fallback` when unset). */
export function numberSetting(name: string, fallback: number): number {
  const value = number(name, raw(name) ?? String(fallback));
  used.set(name, String(value));
  return value;
}

/** BENCH_<name> as a comma-separated list of numbers. */
export function listSetting(name: string, fallback: number[]): number[] {
  const values = (raw(name) ?? fallback.join(",")).split(",").filter(Boolean).map((text) => number(name, text));
  used.set(name, values.join(","));
  return values;
}

/** BENCH_<name> as text, undefined when unset; named in the command only when set. */
export function textSetting(name: string): string | undefined {
  const value = raw(name);
  if (value !== undefined) used.set(name, value);
  return value;
}

/** The command that reproduces this run: every setting read, then `pnpm <script>`. */
export const commandLine = (script: string) =>
  `${[...used].map(([name, value]) => `BENCH_${name}=${value.includes(" ") ? `'${value}'` : value} `).join("")}pnpm ${script}`;
