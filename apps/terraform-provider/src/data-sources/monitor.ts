import { MONITOR_STATUSES, PERIODICITIES, type MonitorKind, type MonitorMessageByKind } from "@vigil/domain";
import { ProviderError } from "../diagnostics.js";
import { computed, fromOutput, required, type BlockSpec } from "../schema/index.js";
import type { DataSourceDefinition } from "../resources/definition.js";
import { monitorOutput } from "../resources/monitor.js";

const schema: BlockSpec = {
  attributes: {
    id: required("string", "The monitor's id."),
    type: computed("string", "The monitor's kind: http, tcp, dns or grpc."),
    name: computed("string", "Name of the monitor."),
    url: computed("string", "URL requested (HTTP monitors; null for the others)."),
    uri: computed("string", "Target: host:port of a TCP or gRPC monitor, domain of a DNS monitor (null for HTTP monitors)."),
    periodicity: computed("string", `How often the monitor is checked: ${PERIODICITIES.join(", ")}.`),
    method: computed("string", "HTTP method (HTTP monitors; null for the others)."),
    active: computed("bool", "Whether the monitor is checked."),
    public: computed("bool", "Whether the monitor is visible on the public status page."),
    description: computed("string", "Description."),
    timeout: computed("number", "Time a check may take in ms."),
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
    // Step 5 of heartbeats (issue 39) brings them to the provider; until then they are named, not misread.
    if (kind === "heartbeat") throw new ProviderError("A heartbeat monitor", `monitor ${String(config.id)} is a heartbeat monitor, which this data source does not read`);
    const value = monitor.config.value as MonitorMessageByKind[MonitorKind];
    return fromOutput(schema, { ...monitorOutput(kind, value), type: kind });
  },
};
