// Helpers shared by the benchmarks: progress, percentiles and number
// formatting. CPU accounting and the machine line are in bench/support/machine.ts, the generated
// blocks of docs/benchmarks.md in bench/support/doc.ts.
import { randomBytes } from "node:crypto";

export const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A Redis key prefix of the run's own, removed afterwards (test/redis.ts deletePrefix). */
export const benchPrefix = () => `vigil-bench-${randomBytes(4).toString("hex")}`;

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted: ArrayLike<number>, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

export const sortedCopy = (values: Iterable<number>) => Float64Array.from(values).sort();

export const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "n/a";
