// The Connect JSON calls the benchmarks load a server with, and the check that a server answers one
// as it should (not just 200). Shared by bench/api.ts and bench/scaling.ts.
import type { LoadRequest } from "./load";

export interface ApiCall {
  name: string;
  path: string;
  /** Called for every request, so GetMonitor can ask for a different monitor each time. */
  body: () => string;
  /** What is wrong with an answer, or null. */
  check: (response: any) => string | null;
}

/** GetMonitor of a random one of `monitorIds` each time. */
export function getMonitorCall(monitorIds: string[]): ApiCall {
  return {
    name: "GetMonitor",
    path: "/monitor.v1.MonitorService/GetMonitor",
    body: () => JSON.stringify({ id: monitorIds[Math.floor(Math.random() * monitorIds.length)] }),
    check: (r) => ((r.monitor?.http ?? r.monitor?.tcp ?? r.monitor?.dns)?.id ? null : `no monitor in ${JSON.stringify(r)}`),
  };
}

/** The call as the load generator sends it, with the API key. */
export const loadRequest = (call: ApiCall, key: string): LoadRequest => ({
  method: "POST",
  path: call.path,
  headers: { "content-type": "application/json", "x-service-key": key },
  body: call.body,
});

/** Sends the call once to the server on `port` and throws unless it answers what it should. */
export async function assertAnswers(port: number, call: ApiCall, key: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}${call.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-key": key },
    body: call.body(),
  });
  const problem = response.ok ? call.check(await response.json()) : `HTTP ${response.status}: ${await response.text()}`;
  if (problem) throw new Error(`${call.name} on port ${port}: ${problem}`);
}
