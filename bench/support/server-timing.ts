// Where a latency tail was made, measured during one paced run: the time the server took over each
// request (from its headers parsed to its answer handed to the socket), how long the server's and
// the load generator's event loops were blocked, and the server's garbage collections. A request's
// latency beyond the first two was spent in the load generator, in the kernel or waiting for a core.
import type { ChildProcess } from "node:child_process";
import diagnostics_channel from "node:diagnostics_channel";
import { constants, createHistogram, monitorEventLoopDelay, PerformanceObserver, type Histogram } from "node:perf_hooks";

export interface Tail {
  p99: number;
  max: number;
}

export interface ServerTiming {
  /** From a request's headers parsed to its answer written (ms). */
  handling: Tail;
  /** How long the server's event loop was blocked (ms). */
  loopDelay: Tail;
  /** The server's garbage collections: the longest young one, and how many full ones and the longest (ms). */
  gc: { youngMax: number; full: number; fullMax: number };
}

type Message = { serverTiming?: "reset" | "read" | ServerTiming };

/** A histogram's p99 and max in ms (perf_hooks histograms hold integers: ours are in µs, the loop delay in ns). */
export const tailOf = (histogram: Histogram, unitsPerMs: number): Tail => ({
  p99: histogram.percentile(99) / unitsPerMs,
  max: histogram.max / unitsPerMs,
});

/** A blocked event loop in this process, from now until the returned function reads it. */
export function watchLoopDelay(): () => Tail {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  return () => {
    histogram.disable();
    return tailOf(histogram, 1e6);
  };
}

/** In the server process (bench/api-server.ts): times requests and answers the benchmark's messages. */
export function answerServerTiming(): void {
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const handling = createHistogram();
  const started = new WeakMap<object, number>();
  diagnostics_channel.subscribe("http.server.request.start", (message) => {
    started.set((message as { response: object }).response, performance.now());
  });
  diagnostics_channel.subscribe("http.server.response.finish", (message) => {
    const start = started.get((message as { response: object }).response);
    if (start !== undefined) handling.record(Math.max(1, Math.round((performance.now() - start) * 1000)));
  });
  const noCollections = (): ServerTiming["gc"] => ({ youngMax: 0, full: 0, fullMax: 0 });
  let gc = noCollections();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { kind } = (entry as unknown as { detail: { kind: number } }).detail;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        gc.youngMax = Math.max(gc.youngMax, entry.duration);
      } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        gc.full++;
        gc.fullMax = Math.max(gc.fullMax, entry.duration);
      }
    }
  }).observe({ entryTypes: ["gc"] });
  process.on("message", (message: Message) => {
    if (message.serverTiming === "reset") {
      loopDelay.reset();
      handling.reset();
      gc = noCollections();
    } else if (message.serverTiming === "read") {
      const timing: ServerTiming = { handling: tailOf(handling, 1e3), loopDelay: tailOf(loopDelay, 1e6), gc };
      process.send?.({ serverTiming: timing } satisfies Message);
    }
  });
}

/** In the benchmark: starts a new window of the server's timing; the returned function reads it. */
export function serverTiming(child: ChildProcess): () => Promise<ServerTiming> {
  child.send({ serverTiming: "reset" } satisfies Message);
  return () =>
    new Promise((resolve) => {
      const onMessage = (message: Message) => {
        if (typeof message.serverTiming !== "object") return;
        child.off("message", onMessage);
        resolve(message.serverTiming);
      };
      child.on("message", onMessage);
      child.send({ serverTiming: "read" } satisfies Message);
    });
}
