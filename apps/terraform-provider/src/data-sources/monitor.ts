import { MONITOR_STATUSES, PERIODICITIES, type MonitorKind, type MonitorMessageByKind } from "@vigil/domain";
import type { HeartbeatMonitor } from "@vigil/proto";
import { ProviderError } from "../diagnostics.js";
import { computed, fromOutput, required, type BlockSpec } from "../schema/index.js";
import type { DataSourceDefinition } from "../resources/definition.js";
import { heartbeatOutput } from "../resources/heartbeat-monitor.js";
import { monitorOutput } from "../resources/monitor.js";

const schema: BlockSpec = {
  attributes: {
    id: required("string", "The monitor's id."),
    type: computed("string", "The monitor's kind: http, tcp, dns, grpc or heartbeat."),
    name: computed("string", "Name of the monitor."),
    url: computed("string", "URL requested (HTTP monitors; null for the others)."),
    uri: computed("string", "Target: host:port of a TCP or gRPC monitor, domain of a DNS monitor (null for HTTP monitors and heartbeats)."),
    periodicity: computed("string", `How often the monitor is checked: ${PERIODICITIES.join(", ")} (null for heartbeats).`),
    method: computed("string", "HTTP method (HTTP monitors; null for the others)."),
    active: computed("bool", "Whether the monitor is checked."),
    public: computed("bool", "Whether the monitor is visible on the public status page."),
    description: computed("string", "Description."),
    timeout: computed("number", "Time a check may take in ms (null for heartbeats)."),
    period_seconds: computed("number", "Seconds between a heartbeat's runs (null with cron, and for the other kinds)."),
    cron: computed("string", "A heartbeat's cron expression (\"\" with period_seconds; null for the other kinds)."),
    timezone: computed("string", "The IANA time zone a heartbeat's cron is read in (null for the other kinds)."),
    grace_seconds: computed("number", "Seconds a heartbeat's run may be late (null for the other kinds)."),
    ping_url: computed("string", "The URL a heartbeat's job pings; null for the other kinds and for a read key, which is not answered it.", { sensitive: true }),
    depends_on_monitors: computed(["list", "string"], "Ids of the monitors it depends on.", { field: "dependsOn" }),
    status: computed("string", `The monitor's status: ${MONITOR_STATUSES.join(", ")}.`),
  },
};

export const monitorDataSource: DataSourceDefinition = {
  typeName: "service_monitor",
  description: "One monitor of any kind, by id.",
  schema,
  async read(ctx, config) {
    const { monitor } = await ctx.client.monitors.getMonitor({ id: String(config.id) }, { signal: ctx.signal });
    const kind = monitor?.config.case;
    if (!kind) throw new ProviderError("Unexpected answer", `the API answered without monitor ${String(config.id)}`);
    if (kind === "heartbeat") {
      const { pingUrl, ...output } = heartbeatOutput(monitor.config.value as HeartbeatMonitor);
      return fromOutput(schema, { ...output, ...(pingUrl ? { pingUrl } : {}), type: kind });
    }
    const value = monitor.config.value as MonitorMessageByKind[MonitorKind];
    return fromOutput(schema, { ...monitorOutput(kind, value), type: kind });
  },
};
