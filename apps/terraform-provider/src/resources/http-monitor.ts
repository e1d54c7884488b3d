import { DEFAULTS, HTTP_METHODS, JSON_COMPARATORS, LIMITS, NUMBER_COMPARATORS, STRING_COMPARATORS } from "@vigil/domain";
import { required, withDefault, type AttributeSpec, type NestedBlockSpec } from "../schema/index.js";
import { headerBlock, monitorResource } from "./monitor.js";

const assertionBlock = (description: string, attributes: Record<string, AttributeSpec>): NestedBlockSpec => ({
  nesting: "list",
  description: `${description} At most ${LIMITS.assertionsPerList}.`,
  maxItems: LIMITS.assertionsPerList,
  block: { attributes },
});

const stringComparator = required("string", `How the value compares with target: ${STRING_COMPARATORS.join(", ")}.`);

export const httpMonitor = monitorResource({
  kind: "http",
  typeName: "service_http_monitor",
  description: "A monitor that sends an HTTP request to a URL from each of its regions and checks the response.",
  attributes: {
    url: required("string", `URL requested (http or https), at most ${LIMITS.targetMaxChars} characters.`),
    method: withDefault("string", `HTTP method: ${HTTP_METHODS.join(", ")}.`, DEFAULTS.method),
    body: withDefault("string", "Request body.", DEFAULTS.body),
    follow_redirects: withDefault("bool", "Whether redirects are followed.", DEFAULTS.followRedirects),
    trace_header: withDefault(
      "bool",
      "Whether each check sends a W3C traceparent header (a new trace per check, whose id each result records). A traceparent among headers is sent instead.",
      DEFAULTS.traceHeader,
    ),
    certificate_expiry_days: withDefault(
      "number",
      `Days before the TLS certificate chain's earliest expiry that monitor.certificate_expiring is sent (again at 7 and 1 days left), ${LIMITS.certificateExpiryDays.min} to ${LIMITS.certificateExpiryDays.max}; 0 sends none.`,
      DEFAULTS.certificateExpiryDays,
    ),
  },
  blocks: {
    headers: headerBlock(`Request headers, at most ${LIMITS.headersPerMonitor}.`),
    status_code_assertions: assertionBlock("Checks of the response's status code; none: a 2xx status is required.", {
      target: required("number", `Status code, ${LIMITS.statusCode.min} to ${LIMITS.statusCode.max}.`),
      comparator: required("string", `How the status code compares with target: ${NUMBER_COMPARATORS.join(", ")}.`),
    }),
    body_assertions: assertionBlock("Checks of the response's body.", {
      target: required("string", "Value the body is compared with."),
      comparator: stringComparator,
    }),
    header_assertions: assertionBlock("Checks of a response header.", {
      key: required("string", "Header name."),
      target: required("string", "Value the header is compared with."),
      comparator: stringComparator,
    }),
    json_body_assertions: assertionBlock("Checks of the values a JSONPath query selects in the response body, which must be JSON; every value selected must satisfy the comparator.", {
      path: required("string", `JSONPath query (RFC 9535) such as $.status, at most ${LIMITS.jsonPathMaxChars} characters.`),
      comparator: required("string", `How the selected values compare with target: ${JSON_COMPARATORS.join(", ")}.`),
      target: withDefault("string", "Value compared with; a number for gt, gte, lt and lte; none for exists and not_exists.", ""),
    }),
  },
});
