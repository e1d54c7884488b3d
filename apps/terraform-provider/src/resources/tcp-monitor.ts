import { LIMITS } from "@vigil/domain";
import { required } from "../schema/index.js";
import { monitorResource } from "./monitor.js";

/** A target as host:port: the uri of TCP and gRPC monitors. */
export const hostPortUri = required("string", `Target as host:port (hostname, IPv4 address or [IPv6]), at most ${LIMITS.targetMaxChars} characters.`);

export const tcpMonitor = monitorResource({
  kind: "tcp",
  typeName: "service_tcp_monitor",
  description: "A monitor that opens a TCP connection to host:port from each of its regions.",
  attributes: {
    uri: hostPortUri,
  },
});
