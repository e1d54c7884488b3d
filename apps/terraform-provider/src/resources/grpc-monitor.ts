import { DEFAULTS, GRPC_HEALTH_STATUSES, LIMITS } from "@vigil/domain";
import { withDefault } from "../schema/index.js";
import { headerBlock, monitorResource } from "./monitor.js";
import { hostPortUri } from "./tcp-monitor.js";

export const grpcMonitor = monitorResource({
  kind: "grpc",
  typeName: "service_grpc_monitor",
  description: "A monitor that calls grpc.health.v1.Health/Check on host:port from each of its regions and expects a health status.",
  attributes: {
    uri: hostPortUri,
    service: withDefault("string", `Health service asked about ("package.Service"), at most ${LIMITS.grpcServiceMaxChars} characters; empty: the whole server.`, ""),
    tls: withDefault("bool", "Whether to connect over TLS, verifying the certificate as for HTTPS.", DEFAULTS.grpcTls),
    expected_status: withDefault("string", `Health status that passes: ${GRPC_HEALTH_STATUSES.join(", ")}.`, DEFAULTS.grpcExpectedStatus),
    certificate_expiry_days: withDefault(
      "number",
      `With tls: days before the certificate chain's earliest expiry that monitor.certificate_expiring is sent (again at 7 and 1 days left), ${LIMITS.certificateExpiryDays.min} to ${LIMITS.certificateExpiryDays.max}; 0 sends none.`,
      DEFAULTS.certificateExpiryDays,
    ),
  },
  blocks: {
    headers: headerBlock(`Metadata sent with the call, at most ${LIMITS.headersPerMonitor}.`),
  },
});
