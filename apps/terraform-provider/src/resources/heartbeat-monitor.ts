import {
  DEFAULTS,
  HEARTBEAT_FIELDS,
  LIMITS,
  MONITOR_STATUSES,
  heartbeatConfigToMessage,
  heartbeatInputFromMessage,
  monitorStatusCodec,
  parseHeartbeatConfig,
} from "@vigil/domain";
import type { HeartbeatMonitor } from "@vigil/proto";
import { domainViolations, ProviderError } from "../diagnostics.js";
import { computed, fromOutput, optionalComputed, required, toInput, withDefault, type BlockSpec } from "../schema/index.js";
import type { TfObject } from "../values/index.js";
import { answered, deleteIfPresent, dependsOnMonitorsAttribute, unlessMissing } from "./common.js";
import type { ResourceDefinition } from "./definition.js";

const schema: BlockSpec = {
  attributes: {
    id: computed("string", "The monitor's id."),
    name: required("string", `Name of the monitor, at most ${LIMITS.nameMaxChars} characters.`),
    period_seconds: optionalComputed(
      "number",
      `Seconds between the job's runs, ${LIMITS.heartbeatPeriodSeconds.min} to ${LIMITS.heartbeatPeriodSeconds.max}; ${DEFAULTS.heartbeatPeriodSeconds} when neither it nor cron is given, null with cron.`,
      { derived: true },
    ),
    cron: withDefault("string", "When the job runs, as a cron expression of 5 or 6 fields, instead of period_seconds.", ""),
    timezone: withDefault("string", "The IANA time zone cron is read in.", DEFAULTS.timezone),
    grace_seconds: withDefault(
      "number",
      `Seconds a run may be late before the monitor fails, ${LIMITS.heartbeatGraceSeconds.min} to ${LIMITS.heartbeatGraceSeconds.max}.`,
      DEFAULTS.heartbeatGraceSeconds,
    ),
    active: withDefault("bool", "Whether silence fails the monitor.", DEFAULTS.active),
    public: withDefault("bool", "Whether the monitor is visible on the public status page.", DEFAULTS.public),
    description: withDefault("string", `Description, at most ${LIMITS.descriptionMaxChars} characters.`, DEFAULTS.description),
    depends_on_monitors: dependsOnMonitorsAttribute(),
    ping_url: computed("string", "The URL the job pings (GET or POST, with /start, /fail or /<exit code>); its token is the only secret a ping needs.", {
      sensitive: true,
    }),
    status: computed("string", `The monitor's status: ${MONITOR_STATUSES.join(", ")}.`, { volatile: true }),
  },
};

/**
 * The state of an answered monitor. A read key is answered no ping URL: the state keeps the one it knows, as the
 * URL does not change while the monitor lives.
 */
function stateOf(monitor: HeartbeatMonitor | undefined, known: TfObject | null = null): TfObject {
  const answer = answered(monitor, "monitor");
  const pingUrl = answer.pingUrl || (typeof known?.ping_url === "string" ? known.ping_url : "");
  return fromOutput(schema, { ...heartbeatOutput(answer), pingUrl });
}

/** An answered heartbeat monitor in the domain's terms, with its id, status and ping URL ("" for a read key). */
export function heartbeatOutput(answer: HeartbeatMonitor) {
  const status = monitorStatusCodec.decode(answer.status);
  return { ...parseHeartbeatConfig(heartbeatInputFromMessage(answer)), id: answer.id, pingUrl: answer.pingUrl, status: typeof status === "string" ? status : "unknown" };
}

/** The API message of the planned monitor: every field, the domain's defaults filled in. */
const message = (planned: TfObject) => heartbeatConfigToMessage(parseHeartbeatConfig(toInput(schema, planned)));

/** A heartbeat (push) monitor: a job pings its ping_url, and silence fails it (docs/checks.md "Heartbeats"). */
export const heartbeatMonitor: ResourceDefinition = {
  typeName: "service_heartbeat_monitor",
  description: "A monitor that a job pings; it fails when no success arrives within the period (or until the cron expression's next time) plus the grace.",
  schema,
  validate: (config) => domainViolations(() => parseHeartbeatConfig(toInput(schema, config))),
  async create(ctx, planned) {
    const { monitor } = await ctx.client.monitors.createHeartbeatMonitor({ monitor: message(planned) }, { signal: ctx.signal });
    return stateOf(monitor);
  },
  async read(ctx, state) {
    const id = String(state.id);
    const answer = await unlessMissing(ctx.client.monitors.getMonitor({ id }, { signal: ctx.signal }));
    if (answer === null) return null;
    const config = answer.monitor?.config;
    if (config?.case !== "heartbeat") {
      throw new ProviderError("Not a heartbeat monitor", `monitor ${id} is a ${config?.case ?? "unknown"} monitor; use the resource of its kind`);
    }
    return stateOf(config.value, state);
  },
  async update(ctx, planned, prior) {
    const request = { id: String(prior.id), monitor: message(planned), updateMask: { paths: [...HEARTBEAT_FIELDS] as string[] } };
    const { monitor } = await ctx.client.monitors.updateHeartbeatMonitor(request, { signal: ctx.signal });
    return stateOf(monitor, prior);
  },
  async delete(ctx, state) {
    await deleteIfPresent(ctx.client.monitors.deleteMonitor({ id: String(state.id) }, { signal: ctx.signal }));
  },
  importState: (id) => ({ id }),
};
