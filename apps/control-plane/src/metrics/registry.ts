import { Registry, collectDefaultMetrics } from "prom-client";
import { EVENT_LOOP_SAMPLE_MS } from "@vigil/domain";

/**
 * The control plane's one Prometheus registry for the whole process: every
 * metric in definitions.ts, and Node's process defaults (CPU, memory, heap,
 * event-loop lag as nodejs_eventloop_lag_seconds, sampled every
 * EVENT_LOOP_SAMPLE_MS), under their standard names so that stock Node.js
 * dashboards read them too.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
