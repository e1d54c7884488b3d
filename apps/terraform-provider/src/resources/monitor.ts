import {
  DEFAULTS,
  LIMITS,
  MONITOR_FIELDS,
  MONITOR_STATUSES,
  PERIODICITIES,
  REGION_IDS,
  SLO,
  monitorInputFromMessage,
  monitorStatusCodec,
  monitorConfigToMessage,
  parseMonitorConfig,
  regionIdsAt,
  restoreCredentials,
  type MonitorKind,
  type MonitorMessageByKind,
} from "@vigil/domain";
import { domainViolations, ProviderError, type Violation } from "../diagnostics.js";
import { computed, fromOutput, optionalComputed, required, toInput, withDefault, type AttributeSpec, type BlockSpec, type NestedBlockSpec } from "../schema/index.js";
import type { TfObject } from "../values/index.js";
import { answered, deleteIfPresent, dependsOnMonitorsAttribute, unlessMissing } from "./common.js";
import type { CallContext, ResourceDefinition } from "./definition.js";

/** What the HTTP, TCP, DNS and gRPC monitors share, as the contract's tables list it. */
export const monitorAttributes: Record<string, AttributeSpec> = {
  id: computed("string", "The monitor's id."),
  name: required("string", `Name of the monitor, at most ${LIMITS.nameMaxChars} characters.`),
  periodicity: required("string", `How often the monitor is checked: ${PERIODICITIES.join(", ")}.`),
  timeout: withDefault("number", `Time a check may take in ms, ${LIMITS.timeoutMs.min} to ${LIMITS.timeoutMs.max}.`, DEFAULTS.timeoutMs),
  degraded_at: optionalComputed("number", "Response time in ms above which the monitor is degraded; computed by the service when left out."),
  retry: withDefault("number", `Attempts after a failed one before the check fails, ${LIMITS.retry.min} to ${LIMITS.retry.max}.`, DEFAULTS.retry),
  regions: withDefault(["set", "string"], `Regions the monitor is checked from, by id (${REGION_IDS.slice(0, 2).join(", ")}, ...; not a bare location code such as iad); none: the service's default regions.`, []),
  active: withDefault("bool", "Whether the monitor is checked.", DEFAULTS.active),
  public: withDefault("bool", "Whether the monitor is visible on the public status page.", DEFAULTS.public),
  description: withDefault("string", `Description, at most ${LIMITS.descriptionMaxChars} characters.`, DEFAULTS.description),
  alert_quorum: withDefault(
    "string",
    'Regions that must fail before the monitor does: "half", "majority", "all" or a number of regions (at most its regions); empty: the service\'s ALERT_QUORUM.',
    DEFAULTS.alertQuorum,
  ),
  confirmations: withDefault(
    "number",
    `Failing checks in a row before a region counts as failing, ${LIMITS.confirmations.min} to ${LIMITS.confirmations.max}.`,
    DEFAULTS.confirmations,
  ),
  recovery_confirmations: withDefault(
    "number",
    `Good checks in a row before a failing region counts as recovered, ${LIMITS.confirmations.min} to ${LIMITS.confirmations.max}.`,
    DEFAULTS.confirmations,
  ),
  depends_on_monitors: dependsOnMonitorsAttribute(),
  availability_objective: withDefault(
    "number",
    `SLO: percent of checks over ${SLO.windowDays} days that must not fail, ${SLO.objectivePercent.min} to ${SLO.objectivePercent.max} (at most ${SLO.objectiveDecimals} decimals); 0: none.`,
    0,
  ),
  latency_objective_ms: withDefault(
    "number",
    `SLO: the latency threshold in ms, ${SLO.latencyObjectiveMs.min} to ${SLO.latencyObjectiveMs.max}, set with latency_objective_percent; 0: none.`,
    0,
  ),
  latency_objective_percent: withDefault(
    "number",
    `SLO: percent of answered checks over ${SLO.windowDays} days at or under latency_objective_ms, ${SLO.objectivePercent.min} to ${SLO.objectivePercent.max}; 0: none.`,
    0,
  ),
  status: computed("string", `The monitor's status: ${MONITOR_STATUSES.join(", ")}.`, { volatile: true }),
};

export const headerBlock = (description: string): NestedBlockSpec => ({
  nesting: "list",
  description,
  maxItems: LIMITS.headersPerMonitor,
  block: {
    attributes: {
      key: required("string", "Header name."),
      value: required("string", "Header value.", { sensitive: true }),
    },
  },
});

export const openTelemetryBlock: NestedBlockSpec = {
  nesting: "single",
  description: "Export of the monitor's metrics to an OpenTelemetry platform over HTTP OTLP.",
  block: {
    attributes: { endpoint: withDefault("string", "OTLP endpoint URL (http or https); empty: the agent's OTLP defaults.", "") },
    blocks: { headers: headerBlock("Headers sent with each export, typically for authentication.") },
  },
};

const orList = new Intl.ListFormat("en", { type: "disjunction" });

/**
 * Bare location codes (`iad`, as the contract's examples write regions) are
 * refused, not mapped: a mapped id would differ from the configuration and
 * show as drift. The rule names the ids the code may stand for, in place of
 * the domain's list of every region.
 */
function withRegionHints(violations: Violation[], regions: unknown): Violation[] {
  const hints = (Array.isArray(regions) ? regions : []).flatMap((region, index): Violation[] => {
    const ids = typeof region === "string" ? regionIdsAt(region) : [];
    const rule = `must be region ids, not the location code "${region}": use ${orList.format(ids.map((id) => `"${id}"`))}`;
    return ids.length > 0 ? [{ field: `regions[${index}]`, rule }] : [];
  });
  return [...violations.filter((v) => !hints.some((hint) => hint.field === v.field)), ...hints];
}

/** A monitor message's fields as the domain's configuration, with its id and status: what resources and data sources show. */
export function monitorOutput<K extends MonitorKind>(kind: K, monitor: MonitorMessageByKind[K]) {
  const config = parseMonitorConfig(kind, monitorInputFromMessage(kind, monitor));
  const status = monitorStatusCodec.decode(monitor.status);
  return { ...config, id: monitor.id, status: typeof status === "string" ? status : "unknown" };
}

const CALLS = {
  http: { create: "createHTTPMonitor", update: "updateHTTPMonitor", label: "HTTP" },
  tcp: { create: "createTCPMonitor", update: "updateTCPMonitor", label: "TCP" },
  dns: { create: "createDNSMonitor", update: "updateDNSMonitor", label: "DNS" },
  grpc: { create: "createGRPCMonitor", update: "updateGRPCMonitor", label: "gRPC" },
} as const;

type MonitorCall = (request: unknown, options: { signal: AbortSignal }) => Promise<{ monitor?: MonitorMessageByKind[MonitorKind] }>;

export interface MonitorResourceOptions {
  kind: MonitorKind;
  typeName: string;
  description: string;
  /** The attributes and blocks of this kind besides monitorAttributes and open_telemetry. */
  attributes: Record<string, AttributeSpec>;
  blocks?: Record<string, NestedBlockSpec>;
}

/** An HTTP, TCP or DNS monitor resource: the domain validates and converts, the API's MonitorService stores. */
export function monitorResource({ kind, typeName, description, attributes, blocks = {} }: MonitorResourceOptions): ResourceDefinition {
  const schema: BlockSpec = {
    attributes: { ...monitorAttributes, ...attributes },
    blocks: { ...blocks, open_telemetry: openTelemetryBlock },
  };
  const calls = CALLS[kind];
  const call = (ctx: CallContext, name: "create" | "update") => (ctx.client.monitors[calls[name]] as unknown as MonitorCall);

  /** The API message of the planned monitor: every field, the domain's defaults filled in, none of the read-only ones. */
  const message = (planned: TfObject) => monitorConfigToMessage(kind, parseMonitorConfig(kind, toInput(schema, planned)));

  /**
   * The state of an answered monitor. A read key is answered credentials as
   * fingerprints (header values, URL user info): where one stands for the
   * value the prior state holds, the state keeps that value.
   */
  const stateOf = (monitor: MonitorMessageByKind[MonitorKind] | undefined, known: TfObject | null = null): TfObject => {
    const output = monitorOutput(kind, answered(monitor, "monitor"));
    return fromOutput(schema, known ? restoreCredentials(output, toInput(schema, known), output.id) : output);
  };

  return {
    typeName,
    description,
    schema,
    validate: (config) => {
      const input = toInput(schema, config);
      return withRegionHints(domainViolations(() => parseMonitorConfig(kind, input)), input.regions);
    },
    async create(ctx, planned) {
      const { monitor } = await call(ctx, "create")({ monitor: message(planned) }, { signal: ctx.signal });
      return stateOf(monitor);
    },
    async read(ctx, state) {
      const id = String(state.id);
      const answer = await unlessMissing(ctx.client.monitors.getMonitor({ id }, { signal: ctx.signal }));
      if (answer === null) return null;
      const { monitor } = answer;
      if (monitor?.config.case !== kind) {
        const other = monitor?.config.case;
        const actual = other === "heartbeat" ? "heartbeat" : other ? CALLS[other].label : "unknown";
        throw new ProviderError(`Not a ${calls.label} monitor`, `monitor ${id} is a ${actual} monitor; use the resource of its kind`);
      }
      return stateOf(monitor.config.value as MonitorMessageByKind[MonitorKind], state);
    },
    async update(ctx, planned, prior) {
      const request = { id: String(prior.id), monitor: message(planned), updateMask: { paths: [...MONITOR_FIELDS[kind]] as string[] } };
      const { monitor } = await call(ctx, "update")(request, { signal: ctx.signal });
      return stateOf(monitor);
    },
    async delete(ctx, state) {
      await deleteIfPresent(ctx.client.monitors.deleteMonitor({ id: String(state.id) }, { signal: ctx.signal }));
    },
    importState: (id) => ({ id }),
  };
}
