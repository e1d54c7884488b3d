// The statistics and number formats of the benchmarks' tables.

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted: ArrayLike<number>, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

export const sortedCopy = (values: Iterable<number>) => Float64Array.from(values).sort();

/** p50, p99 and max of `values`, in any order. */
export function summarize(values: Iterable<number>): { p50: number; p99: number; max: number } {
  const sorted = sortedCopy(values);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
}

export const median = (values: Iterable<number>) => percentile(sortedCopy(values), 50);

export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** "lowest–highest" of `values`. */
export const spread = (values: number[], digits = 2) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

export const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "n/a";

/** An error with its sign, to 2 decimals. */
export const signed = (value: number) => `${value >= 0 ? "+" : ""}${fmt(value, 2)}`;

/**
 * The 95 % bootstrap interval of percentile `p` of `a` minus percentile `p` of `b` (each resampled with
 * replacement `rounds` times): how far that difference moves by chance alone with samples this many.
 */
export function differenceInterval(a: ArrayLike<number>, b: ArrayLike<number>, p: number, rounds = 2_000): { low: number; high: number } {
  const resampled = (values: ArrayLike<number>) => {
    const draw = new Float64Array(values.length);
    for (let i = 0; i < draw.length; i++) draw[i] = values[Math.floor(Math.random() * values.length)]!;
    return percentile(draw.sort(), p);
  };
  const differences = sortedCopy(Array.from({ length: rounds }, () => resampled(a) - resampled(b)));
  return { low: percentile(differences, 2.5), high: percentile(differences, 97.5) };
}
