// What bench/outage-storm.ts reads of the agent's process while it runs: resident memory and open
// file descriptors from /proc, and heap, event-loop delay and checks in flight from its /metrics.
import { readdirSync, readlinkSync } from "node:fs";
import { rssBytes } from "../support/machine";
import { parseExposition, sampleValue } from "../support/prometheus";

export interface ProbeSample {
  rssBytes: number;
  heapUsedBytes: number;
  openFiles: number;
  sockets: number;
  inFlight: number;
  /** The agent's event-loop delay since its previous scrape (prom-client resets it on every scrape). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

function descriptors(pid: number): { openFiles: number; sockets: number } {
  const dir = `/proc/${pid}/fd`;
  let sockets = 0;
  const fds = readdirSync(dir);
  for (const fd of fds) {
    try {
      if (readlinkSync(`${dir}/${fd}`).startsWith("socket:")) sockets++;
    } catch {
      // Closed while listed.
    }
  }
  return { openFiles: fds.length, sockets };
}

export async function probe(pid: number, healthPort: number): Promise<ProbeSample> {
  const samples = parseExposition(await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text());
  const value = (name: string) => sampleValue(samples, name) ?? NaN;
  return {
    rssBytes: rssBytes(pid),
    heapUsedBytes: value("nodejs_heap_size_used_bytes"),
    ...descriptors(pid),
    inFlight: value("vigil_agent_checks_in_flight"),
    loopDelayP99Ms: value("nodejs_eventloop_lag_p99_seconds") * 1000,
    loopDelayMaxMs: value("nodejs_eventloop_lag_max_seconds") * 1000,
  };
}

/** Probes every `everyMs` until stopped; the samples taken. */
export function startProbing(pid: number, healthPort: number, everyMs: number) {
  const samples: ProbeSample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      samples.push(await probe(pid, healthPort));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    samples,
    async stop(): Promise<ProbeSample[]> {
      stopped = true;
      await loop;
      return samples;
    },
  };
}
