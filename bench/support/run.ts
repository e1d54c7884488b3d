// What every benchmark script does around its scenario: progress on stderr (stdout carries the tables), a Redis
// key prefix of its own, and one way to fail.
import { randomBytes } from "node:crypto";

export const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `work` on every item, `parallelism` at a time. */
export async function inParallel<T>(items: readonly T[], parallelism: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, items.length) }, worker));
}

/** A Redis key prefix of the run's own, removed afterwards (deletePrefix). */
export const benchPrefix = () => `vigil-bench-${randomBytes(4).toString("hex")}`;

/** Runs a benchmark's scenario; a failure prints its stack and exits 1. */
export function runBenchmark(scenario: () => Promise<void>): void {
  scenario().catch((error: unknown) => {
    process.stderr.write(`[bench] FAILED: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
}
