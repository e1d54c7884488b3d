/**
 * JSON Schemas of the parts of Atlassian Statuspage's public summary.json
 * (https://<page>.statuspage.io/api/v2/summary.json) that tools read: the
 * keys an incident and its updates have there, and their types. Vigil's own
 * added fields (monitor, uptime_90d) are allowed beside them.
 */
const time = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$" } as const;
const nullableTime = { anyOf: [time, { type: "null" }] } as const;

const component = {
  type: "object",
  required: ["id", "name", "status", "created_at", "updated_at", "position", "description", "showcase", "start_date", "group_id", "page_id", "group", "only_show_if_degraded"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    status: { enum: ["operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance"] },
    created_at: time,
    updated_at: time,
    position: { type: "integer" },
    description: { type: ["string", "null"] },
    showcase: { type: "boolean" },
    start_date: { type: ["string", "null"] },
    group_id: { type: ["string", "null"] },
    page_id: { type: "string" },
    group: { type: "boolean" },
    only_show_if_degraded: { type: "boolean" },
  },
} as const;

const incidentUpdate = {
  type: "object",
  additionalProperties: false,
  required: ["id", "status", "body", "incident_id", "created_at", "updated_at", "display_at", "affected_components", "deliver_notifications", "custom_tweet", "tweet_id"],
  properties: {
    id: { type: "string" },
    status: { enum: ["investigating", "identified", "monitoring", "resolved", "postmortem"] },
    body: { type: "string" },
    incident_id: { type: "string" },
    created_at: time,
    updated_at: time,
    display_at: time,
    affected_components: { anyOf: [{ type: "null" }, { type: "array", items: { type: "object", required: ["code", "name", "old_status", "new_status"] } }] },
    deliver_notifications: { type: "boolean" },
    custom_tweet: { type: ["string", "null"] },
    tweet_id: { type: ["string", "null"] },
  },
} as const;

const incident = {
  type: "object",
  required: ["id", "name", "status", "impact", "created_at", "updated_at", "started_at", "monitoring_at", "resolved_at", "shortlink", "page_id", "incident_updates", "components"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    status: { enum: ["investigating", "identified", "monitoring", "resolved", "postmortem"] },
    impact: { enum: ["none", "minor", "major", "critical"] },
    created_at: time,
    updated_at: time,
    started_at: time,
    monitoring_at: nullableTime,
    resolved_at: nullableTime,
    shortlink: { type: "string", pattern: "^https?://" },
    page_id: { type: "string" },
    incident_updates: { type: "array", items: incidentUpdate },
    components: { type: "array", items: component },
  },
} as const;

const maintenanceUpdate = {
  ...incidentUpdate,
  properties: { ...incidentUpdate.properties, status: { enum: ["scheduled", "in_progress", "verifying", "completed"] } },
} as const;

/** A scheduled maintenance as Statuspage's summary.json lists those upcoming or in progress. */
const scheduledMaintenance = {
  type: "object",
  required: [...incident.required, "scheduled_for", "scheduled_until"],
  properties: {
    ...incident.properties,
    status: { enum: ["scheduled", "in_progress", "verifying", "completed"] },
    impact: { enum: ["maintenance", "none", "minor", "major", "critical"] },
    scheduled_for: time,
    scheduled_until: time,
    incident_updates: { type: "array", items: maintenanceUpdate },
  },
} as const;

export const STATUSPAGE_SUMMARY_SCHEMA = {
  type: "object",
  required: ["page", "components", "incidents", "scheduled_maintenances", "status"],
  properties: {
    page: { type: "object", required: ["id", "name", "url", "time_zone", "updated_at"] },
    components: { type: "array", items: component },
    incidents: { type: "array", items: incident },
    scheduled_maintenances: { type: "array", items: scheduledMaintenance },
    status: {
      type: "object",
      required: ["indicator", "description"],
      properties: { indicator: { enum: ["none", "minor", "major", "critical"] }, description: { type: "string" } },
    },
  },
} as const;
