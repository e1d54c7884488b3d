/**
 * What a client in a browser needs to write a monitor (the console's forms): the rules, limits and
 * defaults of each kind, and the mapping to and from the API's messages. Nothing here needs Node.
 */
export * from "./monitor-config";
export * from "./heartbeat";
export { MONITOR_KIND_NAMES, STORED_MONITOR_KINDS, heartbeatConfigToMessage, heartbeatInputFromMessage } from "./proto/heartbeat-messages";
export { monitorConfigToMessage, monitorInputFromMessage } from "./proto/monitor-messages";
export { externalIdRule } from "./external-id";
export { DEFAULTS, LIMITS, defaultDegradedAt } from "./limits";
export { SLO } from "./slo";
export { PERIODICITIES } from "./periodicity";
export { REGION_GROUPS } from "./regions";
export { HTTP_METHODS, JSON_COMPARATORS, NUMBER_COMPARATORS, RECORD_COMPARATORS, RECORD_TYPES, STRING_COMPARATORS } from "./comparators";
