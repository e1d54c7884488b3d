// Keeps a number of operations in flight for a while: the load of bench/checks.ts, run in its main
// thread (timing fidelity) and in its loop workers (throughput).
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import v8 from "node:v8";
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
  /** Bytes the thread's JavaScript heap allocated in the window (what its garbage collections freed plus what it grew by). */
  allocatedBytes: number;
  /** The most the thread's heap held in the window (before each collection, and at its end), in bytes. */
  heapUsedMaxBytes: number;
}

interface GcStatistics {
  statistics: { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }[];
}

/**
 * The heap of the thread over a window, read off V8's own record of each collection (v8.GCProfiler): what was in use
 * before it less what was left after the previous one is what the code allocated in between. No allocation counter
 * of Node 20 says it more directly, and sampling the heap would miss what a collection freed between two samples.
 */
function heapOver(start: number, gc: GcStatistics, end: number): { allocatedBytes: number; heapUsedMaxBytes: number } {
  let allocated = 0;
  let max = Math.max(start, end);
  let after = start;
  for (const { beforeGC, afterGC } of gc.statistics) {
    allocated += Math.max(0, beforeGC.heapStatistics.usedHeapSize - after);
    max = Math.max(max, beforeGC.heapStatistics.usedHeapSize);
    after = afterGC.heapStatistics.usedHeapSize;
  }
  return { allocatedBytes: allocated + Math.max(0, end - after), heapUsedMaxBytes: max };
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
  const gc = new v8.GCProfiler();
  const heapAtStart = v8.getHeapStatistics().used_heap_size;
  gc.start();
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
  const heap = heapOver(heapAtStart, gc.stop() as GcStatistics, v8.getHeapStatistics().used_heap_size);
  loopDelay.disable();
  await Promise.all(workers);
  // The histogram holds the intervals between its timer's runs, so the timer's own period is taken off.
  const loopDelayP99 = Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_DELAY_RESOLUTION_MS);
  return { completed, failed, firstError, seconds: elapsed, loopDelayP99, cpu, ...heap };
}
