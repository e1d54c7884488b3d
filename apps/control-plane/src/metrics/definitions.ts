import { Counter, Gauge, Histogram } from "prom-client";
import { MONITOR_STATUSES, PING_KINDS, PROVIDER_TYPES, STORED_MONITOR_KINDS } from "@vigil/domain";
import { registry } from "./registry";

const registers = [registry];
const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Counter({ name, help, labelNames, registers });
const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Gauge({ name, help, labelNames, registers });
const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []) => new Histogram({ name, help, buckets, labelNames, registers });

/** Seconds from a millisecond to a minute: API calls, batches, deliveries. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const apiRequests = counter("vigil_api_requests_total", "RPC calls answered, by service, method and Connect code.", ["service", "method", "code"]);
export const apiRequestDuration = histogram("vigil_api_request_duration_seconds", "Time to answer an RPC call, by service and method.", LATENCY_BUCKETS, ["service", "method"]);

export const resultsIngestBatchSize = histogram("vigil_results_ingest_batch_size", "Results read from the stream and stored in one transaction.", [1, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_000, 5_000]);
export const resultsIngestDuration = histogram("vigil_results_ingest_duration_seconds", "Time to store and acknowledge one batch of results.", LATENCY_BUCKETS);
export const resultsStreamLength = gauge("vigil_results_stream_length", "Entries in the results stream: not yet read, or read and not yet stored.");
export const resultsConsumerLag = gauge("vigil_results_consumer_lag", "Entries in the results stream that no control plane has read yet.");
export const resultsPending = gauge("vigil_results_pending", "Entries a control plane has read but not yet stored and acknowledged.");

export const redisReachable = gauge("vigil_redis_reachable", "1 when this scrape read the queues and the results stream from Redis, 0 when Redis did not answer in time.");
export const queueDepth = gauge("vigil_queue_depth", "Check jobs due and waiting for an agent, by region.", ["region"]);
export const queueOldestJobAge = gauge("vigil_queue_oldest_job_age_seconds", "How long the longest-waiting due check job of a region has waited (0 when none waits).", ["region"]);

export const reconciliationDuration = histogram("vigil_scheduler_reconciliation_duration_seconds", "Time to rebuild the check schedules in Redis from the database.", [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]);
export const lastReconciliation = gauge("vigil_scheduler_last_reconciliation_timestamp_seconds", "Unix time of the last successful reconciliation (0: none yet in this process).");
export const schedulerDrift = counter("vigil_scheduler_drift_total", "Schedules a reconciliation found out of line with the database: missing (created again) or stale (removed).", ["drift"]);

export const DELIVERY_OUTCOMES = ["delivered", "retrying", "failed"] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export const notificationDeliveries = counter("vigil_notification_deliveries_total", "Attempts at sending a notification, by provider and outcome (delivered, retrying: failed and tried again later, failed: for good).", ["provider", "outcome"]);
export const notificationDeliveryDuration = histogram("vigil_notification_delivery_duration_seconds", "Time a provider took to answer one delivery attempt.", LATENCY_BUCKETS, ["provider"]);

export const statusPageRequests = counter("vigil_status_page_requests_total", "Requests for public status pages, by representation (html, summary, badge, feed).", ["representation"]);
export const statusPageCacheHits = counter("vigil_status_page_cache_hits_total", "Public status page requests answered from the in-memory cache.");
export const statusPageCacheMisses = counter("vigil_status_page_cache_misses_total", "Public status page requests that loaded the page from the database.");

export const PING_REFUSALS = ["404", "429"] as const;
export const heartbeatPings = counter("vigil_heartbeat_pings_total", "Pings of heartbeat monitors stored, by outcome (success, start, fail; an exit code counts as success or fail).", ["outcome"]);
export const heartbeatPingsRefused = counter("vigil_heartbeat_pings_refused_total", "Requests to ping URLs refused, by HTTP status: 404 (no heartbeat monitor has the token, or no such path), 429 (over the rate limit).", ["code"]);
export const heartbeatPingBatchSize = histogram("vigil_heartbeat_ping_batch_size", "Pings stored by one statement: 1 at a trickle, more in a burst.", [1, 5, 10, 25, 50, 100, 250]);
export const heartbeatSilences = counter("vigil_heartbeat_silences_total", "Heartbeat monitors this control plane failed because no success arrived by their deadline.");
export const monitorsByStatus = gauge("vigil_monitors", "Monitors of the deployment by kind and status, counted in the database at scrape time.", ["kind", "status"]);

// Every provider's series exist from the start, so that rates and alerts see a zero rather than nothing.
for (const provider of PROVIDER_TYPES) {
  for (const outcome of DELIVERY_OUTCOMES) notificationDeliveries.inc({ provider, outcome }, 0);
  notificationDeliveryDuration.zero({ provider });
}
for (const drift of ["missing", "stale"]) schedulerDrift.inc({ drift }, 0);
for (const outcome of PING_KINDS) heartbeatPings.inc({ outcome }, 0);
for (const code of PING_REFUSALS) heartbeatPingsRefused.inc({ code }, 0);
for (const kind of STORED_MONITOR_KINDS) for (const status of MONITOR_STATUSES) monitorsByStatus.set({ kind, status }, 0);
