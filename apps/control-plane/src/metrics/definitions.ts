import { Counter, Gauge, Histogram } from "prom-client";
import { PROVIDER_TYPES } from "@vigil/domain";
import { registry } from "./registry";

const registers = [registry];

/** Seconds from a millisecond to a minute: API calls, batches, deliveries. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const apiRequests = new Counter({
  name: "vigil_api_requests_total",
  help: "RPC calls answered, by service, method and Connect code.",
  labelNames: ["service", "method", "code"] as const,
  registers,
});

export const apiRequestDuration = new Histogram({
  name: "vigil_api_request_duration_seconds",
  help: "Time to answer an RPC call, by service and method.",
  labelNames: ["service", "method"] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});

export const resultsIngestBatchSize = new Histogram({
  name: "vigil_results_ingest_batch_size",
  help: "Results read from the stream and stored in one transaction.",
  buckets: [1, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_000, 5_000],
  registers,
});

export const resultsIngestDuration = new Histogram({
  name: "vigil_results_ingest_duration_seconds",
  help: "Time to store and acknowledge one batch of results.",
  buckets: LATENCY_BUCKETS,
  registers,
});

export const resultsStreamLength = new Gauge({
  name: "vigil_results_stream_length",
  help: "Entries in the results stream: not yet read, or read and not yet stored.",
  registers,
});

export const resultsConsumerLag = new Gauge({
  name: "vigil_results_consumer_lag",
  help: "Entries in the results stream that no control plane has read yet.",
  registers,
});

export const resultsPending = new Gauge({
  name: "vigil_results_pending",
  help: "Entries a control plane has read but not yet stored and acknowledged.",
  registers,
});

export const redisReachable = new Gauge({
  name: "vigil_redis_reachable",
  help: "1 when this scrape read the queues and the results stream from Redis, 0 when Redis did not answer in time.",
  registers,
});

export const queueDepth = new Gauge({
  name: "vigil_queue_depth",
  help: "Check jobs due and waiting for an agent, by region.",
  labelNames: ["region"] as const,
  registers,
});

export const queueOldestJobAge = new Gauge({
  name: "vigil_queue_oldest_job_age_seconds",
  help: "How long the longest-waiting due check job of a region has waited (0 when none waits).",
  labelNames: ["region"] as const,
  registers,
});

export const reconciliationDuration = new Histogram({
  name: "vigil_scheduler_reconciliation_duration_seconds",
  help: "Time to rebuild the check schedules in Redis from the database.",
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers,
});

export const lastReconciliation = new Gauge({
  name: "vigil_scheduler_last_reconciliation_timestamp_seconds",
  help: "Unix time of the last successful reconciliation (0: none yet in this process).",
  registers,
});

export const schedulerDrift = new Counter({
  name: "vigil_scheduler_drift_total",
  help: "Schedules a reconciliation found out of line with the database: missing (created again) or stale (removed).",
  labelNames: ["drift"] as const,
  registers,
});

export const DELIVERY_OUTCOMES = ["delivered", "retrying", "failed"] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export const notificationDeliveries = new Counter({
  name: "vigil_notification_deliveries_total",
  help: "Attempts at sending a notification, by provider and outcome (delivered, retrying: failed and tried again later, failed: for good).",
  labelNames: ["provider", "outcome"] as const,
  registers,
});

export const notificationDeliveryDuration = new Histogram({
  name: "vigil_notification_delivery_duration_seconds",
  help: "Time a provider took to answer one delivery attempt.",
  labelNames: ["provider"] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});

export const statusPageRequests = new Counter({
  name: "vigil_status_page_requests_total",
  help: "Requests for public status pages, by representation (html, summary, badge, feed).",
  labelNames: ["representation"] as const,
  registers,
});

export const statusPageCacheHits = new Counter({
  name: "vigil_status_page_cache_hits_total",
  help: "Public status page requests answered from the in-memory cache.",
  registers,
});

export const statusPageCacheMisses = new Counter({
  name: "vigil_status_page_cache_misses_total",
  help: "Public status page requests that loaded the page from the database.",
  registers,
});

// Every provider's series exist from the start, so that rates and alerts see a zero rather than nothing.
for (const provider of PROVIDER_TYPES) {
  for (const outcome of DELIVERY_OUTCOMES) notificationDeliveries.inc({ provider, outcome }, 0);
  notificationDeliveryDuration.zero({ provider });
}
for (const drift of ["missing", "stale"]) schedulerDrift.inc({ drift }, 0);
