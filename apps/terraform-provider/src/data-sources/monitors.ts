import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { DEFAULTS, LIMITS, parsePage } from "@vigil/domain";
import { domainViolations } from "../diagnostics.js";
import { computed, toInput, withDefault, type BlockSpec } from "../schema/index.js";
import type { DataSourceDefinition } from "../resources/definition.js";
import type { TfObject } from "../values/index.js";

const schema: BlockSpec = {
  attributes: {
    limit: withDefault("number", `Most monitors listed, ${LIMITS.listLimit.min} to ${LIMITS.listLimit.max}.`, DEFAULTS.listLimit),
    offset: withDefault("number", "Monitors skipped, oldest first.", DEFAULTS.listOffset),
    monitors: computed(["list", ["object", { id: "string", name: "string", type: "string" }]], "The monitors of the page, oldest first."),
  },
};

const pageOf = (config: TfObject) => parsePage(toInput(schema, config));

interface Listed {
  id: string;
  name?: string;
  createdAt?: Timestamp;
}

/** The API's order: creation time, then id. */
const byCreation = (a: Listed, b: Listed) =>
  (a.createdAt ? timestampMs(a.createdAt) : 0) - (b.createdAt ? timestampMs(b.createdAt) : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export const monitorsDataSource: DataSourceDefinition = {
  typeName: "service_monitors",
  description: "A page of the workspace's monitors of every kind, oldest first.",
  schema,
  // parsePage names `limit` and `offset` without a message prefix.
  validate: (config) => domainViolations(() => pageOf(config), { prefixed: false }),
  async read(ctx, config) {
    const { limit, offset } = pageOf(config);
    const { httpMonitors, tcpMonitors, dnsMonitors, grpcMonitors, heartbeatMonitors } = await ctx.client.monitors.listMonitors({ limit, offset }, { signal: ctx.signal });
    // The API answers a page grouped by kind; the page's own order is put back.
    const listed = [
      ...httpMonitors.map((monitor) => ({ ...monitor, type: "http" })),
      ...tcpMonitors.map((monitor) => ({ ...monitor, type: "tcp" })),
      ...dnsMonitors.map((monitor) => ({ ...monitor, type: "dns" })),
      ...grpcMonitors.map((monitor) => ({ ...monitor, type: "grpc" })),
      ...heartbeatMonitors.map((monitor) => ({ ...monitor, type: "heartbeat" })),
    ].sort(byCreation);
    return { limit, offset, monitors: listed.map(({ id, name, type }) => ({ id, name: name ?? "", type })) };
  },
};
