// Keeps a number of operations in flight for a while: the load of bench/checks.ts, run in its main
// thread (timing fidelity) and in its loop workers (throughput).
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { cpuDelta, cpuSnapshot, processTicks, type CpuSnapshot } from "../support/machine";

const LOOP_DELAY_RESOLUTION_MS = 5;

/** One operation; throws (or rejects) when it failed. */
export type Operation = () => Promise<void>;

export interface Run {
  /** Operations that ended within the window (those still in flight at its end are not counted). */
  completed: number;
  failed: number;
  firstError: string | null;
  seconds: number;
  /** Event-loop delay of the thread that ran the operations during the window, p99 in ms. */
  loopDelayP99: number;
  /** CPU counters over the window: this process (all its threads), the target process (`target`), the machine. */
  cpu: CpuSnapshot;
}

/** Keeps `concurrency` operations in flight for `seconds` against the target process `targetPid`, then waits for the last ones to end. */
export async function runLoop(concurrency: number, seconds: number, operation: Operation, targetPid: number): Promise<Run> {
  const snapshot = () => cpuSnapshot({ target: () => processTicks(targetPid).ticks });
  const before = snapshot();
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  const started = performance.now();
  let open = true;
  let completed = 0;
  let failed = 0;
  let firstError: string | null = null;
  loopDelay.enable();
  const worker = async () => {
    while (open) {
      try {
        await operation();
        if (open) completed += 1;
      } catch (error) {
        failed += 1;
        firstError ??= (error as Error).message ?? String(error);
      }
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  // The window closes when this timer runs, possibly late on a busy loop: counts and CPU both stop here.
  open = false;
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuDelta(before, snapshot());
  loopDelay.disable();
  await Promise.all(workers);
  // The histogram holds the intervals between its timer's runs, so the timer's own period is taken off.
  const loopDelayP99 = Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_DELAY_RESOLUTION_MS);
  return { completed, failed, firstError, seconds: elapsed, loopDelayP99, cpu };
}
