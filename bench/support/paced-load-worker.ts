// The open loop's sender, in a worker thread of its own (started by paced-load.ts): a fresh V8 heap
// that holds only this load, so that the benchmark's own garbage (seeding 10,000 monitors, the closed
// loop's results) is never collected in the middle of a measured run. It was: V8's memory reducer
// collected the parent's 239 MB heap during a 500 req/s row, holding its loop 161 ms.
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import { percentile } from "./stats";
import type { PacedFigures, PacedOrder } from "./paced-load";
import { watchLoopDelay } from "./server-timing";

/**
 * Sends the order's requests evenly spaced at its rate, the warm-up's first and then the measured
 * ones without a pause between (same connections, warm code); posts "measuring" when the first
 * measured request is due, then the figures of the measured ones.
 */
async function run({ port, request, bodies, paths, connections, rate, warmUpSeconds, seconds, expect }: PacedOrder): Promise<PacedFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const warmUp = Math.round(rate * warmUpSeconds);
  const total = warmUp + Math.round(rate * seconds);
  const latencies = new Float64Array(total - warmUp);
  const statuses: Record<string, number> = {};
  const failures: Error[] = [];
  let sent = 0;
  let answered = 0;
  let loopDelay: ReturnType<typeof watchLoopDelay> | undefined;
  const start = performance.now();
  const measuredStart = start + (warmUp * 1000) / rate;

  await new Promise<void>((resolve) => {
    const done = () => {
      if (++answered === total) resolve();
    };
    const send = (i: number) => {
      const due = start + (i * 1000) / rate;
      const req = http.request({ host: "127.0.0.1", port, agent, method: request.method, path: paths?.[i] ?? request.path, headers: request.headers }, (res) => {
        res.resume();
        res.on("end", () => {
          if (i >= warmUp) latencies[i - warmUp] = performance.now() - due;
          statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
          done();
        });
      });
      req.on("error", (error) => {
        failures.push(error);
        done();
      });
      req.end(bodies?.[i]);
    };
    // Sends whatever has come due since the last tick (timers fire a millisecond or more apart).
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
      if (due > warmUp && !loopDelay) {
        loopDelay = watchLoopDelay();
        parentPort!.postMessage("measuring");
      }
      while (sent < due) send(sent++);
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  agent.destroy();

  const unexpected = Object.entries(statuses).filter(([status]) => !expect.includes(Number(status)));
  if (failures.length > 0 || unexpected.length > 0) {
    throw new Error(`${request.method} ${request.path}: ${failures.length} errors (${failures[0]?.message}), answers ${JSON.stringify(statuses)}`);
  }
  const sorted = latencies.sort();
  return {
    requests: latencies.length,
    seconds: (performance.now() - measuredStart) / 1000,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
    statuses,
    loopDelay: loopDelay!(),
  };
}

run(workerData as PacedOrder).then((figures) => parentPort!.postMessage(figures));
