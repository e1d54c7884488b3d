import type { RegionId } from "@vigil/domain/regions";

/**
 * Each region has its own BullMQ queue of check jobs, consumed only by that
 * region's agents. Every key lives under one prefix, so several Vigil
 * installations (or test runs) can share a Redis.
 */
export const DEFAULT_PREFIX = "vigil";
export const checkQueueName = (region: RegionId) => `checks-${region}`;

/** The Redis stream agents append results to; the control plane reads it with a consumer group. */
export const resultsStreamKey = (prefix: string = DEFAULT_PREFIX) => `${prefix}:results`;
export const RESULTS_GROUP = "control-plane";


/** The control plane's queue of notification deliveries (one job per delivery, its id the delivery's). */
export const NOTIFICATION_QUEUE = "notifications";
