import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { CheckStatus } from "@vigil/checks";
import { MONITOR_KINDS, type MonitorKind } from "@vigil/domain/monitor-config";
import { EVENT_LOOP_SAMPLE_MS } from "@vigil/domain/process-metrics";
import type { InFlightLimit } from "./in-flight-limit";
import { SPAN_DROP_REASONS, type SpanDropReason } from "./span-export";

/**
 * The agent's one Prometheus registry, served at /metrics on the health port.
 * Every series, Node's process defaults included, carries the agent's region.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });

const registers = [registry];

const checksRun = new Counter({
  name: "vigil_checks_total",
  help: "Checks run, by kind (http, tcp, dns, grpc) and status (success, degraded, error).",
  labelNames: ["kind", "status"] as const,
  registers,
});

const checkDuration = new Histogram({
  name: "vigil_check_duration_seconds",
  help: "Time a check took from start to outcome, retries included, by kind.",
  labelNames: ["kind"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers,
});

const KINDS: readonly MonitorKind[] = MONITOR_KINDS;
const STATUSES: readonly CheckStatus[] = ["success", "degraded", "error"];

/** Labels every series with the region, and makes each kind's series exist at zero so rates see a silent region. */
export function labelRegion(region: string): void {
  registry.setDefaultLabels({ region });
  for (const kind of KINDS) {
    for (const status of STATUSES) checksRun.inc({ kind, status }, 0);
    checkDuration.zero({ kind });
  }
}

/** Call when a check starts; the returned function with its status once it has an outcome. */
export function startCheck(kind: MonitorKind): (status: CheckStatus) => void {
  const end = checkDuration.startTimer({ kind });
  return (status) => {
    end();
    checksRun.inc({ kind, status });
  };
}

const inFlightLimit = new Gauge({
  name: "vigil_agent_in_flight_limit",
  help: "Checks this agent holds in flight at most, and what set it (bound_by: CONCURRENCY, open_files, memory or cap).",
  labelNames: ["bound_by"] as const,
  registers,
});

let checksInFlight: () => number = () => 0;

new Gauge({
  name: "vigil_agent_checks_in_flight",
  help: "Checks in progress on this agent, publishing their results included.",
  registers,
  collect() {
    this.set(checksInFlight());
  },
});

/** Exports the in-flight limit the agent chose, and the checks in flight (read at scrape time from `running`). */
export function exportInFlight(chosen: InFlightLimit, running: () => number): void {
  inFlightLimit.set({ bound_by: chosen.boundBy }, chosen.limit);
  checksInFlight = running;
}

const spansDropped = new Counter({
  name: "vigil_agent_spans_dropped_total",
  help: "Check spans not delivered to an OpenTelemetry collector, by reason: queue_full (the spans held for it reached OTEL_BSP_MAX_QUEUE_SIZE) or export_failed.",
  labelNames: ["reason"] as const,
  registers,
});
for (const reason of SPAN_DROP_REASONS) spansDropped.inc({ reason }, 0);

/** Counts spans the OTLP export gave up on. */
export function countDroppedSpans(spans: number, reason: SpanDropReason): void {
  spansDropped.inc({ reason }, spans);
}
