// HTTP load at a fixed request rate (an open loop), for latency below saturation. autocannon's
// `overallRate` is no such load: each connection sends its share of a second's requests back to back
// when the second starts and then waits, so every second begins with a burst of 32 requests and its
// latencies are those of a saturated server.
import http from "node:http";
import type { LoadFigures, LoadRequest } from "./load";
import { watchLoopDelay, type Tail } from "./server-timing";
import { percentile } from "../pipeline/common";


/**
 * Sends `request` to the server on `port` `rate` times a second, evenly spaced, for `seconds`, over at
 * most `connections` keep-alive connections. Each latency runs from the moment the request was due,
 * so a request that waits for a free connection (or for this process's event loop) counts its wait:
 * the server being slow cannot hide by delaying the next requests (no coordinated omission). Any
 * error or status outside `expect` fails the run.
 */
export async function pacedLoad(
  port: number,
  request: LoadRequest,
  { connections, seconds, rate, expect = [200] }: { connections: number; seconds: number; rate: number; expect?: number[] },
): Promise<LoadFigures & { loopDelay: Tail }> {
  const loopDelay = watchLoopDelay();
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.round(rate * seconds);
  const latencies = new Float64Array(total);
  const statuses: Record<string, number> = {};
  const failures: Error[] = [];
  let sent = 0;
  let answered = 0;
  const start = performance.now();

  await new Promise<void>((resolve) => {
    const send = (i: number) => {
      const due = start + (i * 1000) / rate;
      const body = request.body?.();
      const req = http.request({ host: "127.0.0.1", port, agent, method: request.method, path: request.path, headers: request.headers }, (res) => {
        res.resume();
        res.on("end", () => {
          latencies[i] = performance.now() - due;
          statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
          if (++answered === total) resolve();
        });
      });
      req.on("error", (error) => {
        failures.push(error);
        if (++answered === total) resolve();
      });
      req.end(body);
    };
    // Sends whatever has come due since the last tick (timers fire a millisecond or more apart).
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
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
    requests: total,
    seconds: (performance.now() - start) / 1000,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
    statuses,
    /** How long this process's event loop was blocked: a request due meanwhile was sent late, an answer read late. */
    loopDelay: loopDelay(),
  };
}
