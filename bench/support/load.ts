// HTTP load with autocannon and latency percentiles from every response. Shared by bench/api.ts,
// bench/status-page.ts and bench/scaling.ts.
import autocannon from "autocannon";
import { percentile } from "./stats";

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  /** Called for every request, so that GetMonitor can ask for a different monitor each time. */
  body?: () => string;
}

export interface LoadFigures {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
}


/**
 * `connections` clients send `request` for `seconds`, spread evenly over `ports` (several servers
 * behind no balancer: one autocannon per port, percentiles over all answers); any error, timeout or
 * status outside `expect` fails the run.
 */
export async function load(
  ports: number | number[],
  request: LoadRequest,
  { connections, seconds, expect = [200] }: { connections: number; seconds: number; expect?: number[] },
): Promise<LoadFigures> {
  const targets = [ports].flat();
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const results = await Promise.all(
    targets.map((port, i) => {
      // Without a callback autocannon returns its event emitter, which is also a promise of the result.
      const instance = autocannon({
        url: `http://127.0.0.1:${port}`,
        connections: Math.floor(connections / targets.length) + (i < connections % targets.length ? 1 : 0),
        duration: seconds,
        // autocannon gives up on a request after 10 s by default; PGlite's slowest answers take longer,
        // and the point is to measure them, not to count them as errors.
        timeout: 120,
        requests: [
          {
            method: request.method,
            path: request.path,
            headers: request.headers,
            ...(request.body && { setupRequest: (r: autocannon.Request) => ({ ...r, body: request.body!() }) }),
          },
        ],
      }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
      // autocannon's own histogram keeps whole milliseconds, coarse for the baseline's few-ms latencies.
      instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
        latencies.push(ms);
        statuses[status] = (statuses[status] ?? 0) + 1;
      });
      return instance;
    }),
  );
  const failures = results.reduce((sum, result) => sum + result.errors + result.timeouts, 0);
  const unexpected = Object.entries(statuses).filter(([status]) => !expect.includes(Number(status)));
  if (failures > 0 || unexpected.length > 0) {
    throw new Error(`${request.method} ${request.path}: ${failures} errors and timeouts, answers ${JSON.stringify(statuses)}`);
  }
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: results.reduce((sum, result) => sum + result.requests.total, 0),
    seconds: Math.max(...results.map((result) => result.duration)),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
    statuses,
  };
}
