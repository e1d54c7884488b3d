import { LIMITS, RECORD_COMPARATORS, RECORD_TYPES } from "@vigil/domain";
import { required } from "../schema/index.js";
import { monitorResource } from "./monitor.js";

export const dnsMonitor = monitorResource({
  kind: "dns",
  typeName: "service_dns_monitor",
  description: "A monitor that looks up a domain's DNS records from each of its regions and checks them.",
  attributes: {
    uri: required("string", `Domain name looked up, at most ${LIMITS.targetMaxChars} characters.`),
  },
  blocks: {
    record_assertions: {
      nesting: "list",
      description: `Checks of the records found, at most ${LIMITS.assertionsPerList}.`,
      maxItems: LIMITS.assertionsPerList,
      block: {
        attributes: {
          record: required("string", `Record type: ${RECORD_TYPES.join(", ")}.`),
          target: required("string", "Value the records are compared with."),
          comparator: required("string", `How the records compare with target: ${RECORD_COMPARATORS.join(", ")}.`),
        },
      },
    },
  },
});
