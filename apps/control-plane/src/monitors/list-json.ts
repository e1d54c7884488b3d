import { toJsonString, type DescMessage, type JsonWriteOptions } from "@bufbuild/protobuf";
import { DNSMonitorSchema, HTTPMonitorSchema, ListMonitorsResponseSchema, TCPMonitorSchema, type ListMonitorsResponse } from "@vigil/proto";

/** Writes a message as Connect's JSON serialization would; the server's `jsonStringWriters` (our Connect patch). */
export type JsonStringWriter = (message: never, options: Partial<JsonWriteOptions>) => string;

declare module "@bufbuild/protobuf" {
  interface JsonWriteOptions {
    /** Writers of their own for some message types, by type name: patches/@connectrpc__connect@2.2.0.patch. */
    jsonStringWriters?: Record<string, JsonStringWriter>;
  }
}

/**
 * The JSON writers of the answers made of shared monitor messages, for the
 * server's JSON options. A page of ListMonitors is a hundred messages the
 * service hands out again while their rows are unchanged (messages.ts), and
 * writing them to JSON was a third of the call's CPU: each message's JSON is
 * written once and joined into every page it is on, byte for byte what
 * toJsonString writes. Only for the options the server uses (every field
 * written, JSON names); any other options get none.
 */
export function monitorJsonWriters(options: Partial<JsonWriteOptions>): Record<string, JsonStringWriter> {
  if (options.alwaysEmitImplicit !== true || options.useProtoFieldName === true) return {};
  const { httpMonitors, tcpMonitors, dnsMonitors, totalSize } = ListMonitorsResponseSchema.field;
  const written = new WeakMap<object, string>();
  const list = (schema: DescMessage, messages: readonly object[]) => {
    let json = "";
    for (const message of messages) {
      let one = written.get(message);
      if (one === undefined) written.set(message, (one = toJsonString(schema, message as never, options)));
      json += json === "" ? one : `,${one}`;
    }
    return json;
  };
  const listMonitors = (response: ListMonitorsResponse) =>
    `{"${httpMonitors.jsonName}":[${list(HTTPMonitorSchema, response.httpMonitors)}],` +
    `"${tcpMonitors.jsonName}":[${list(TCPMonitorSchema, response.tcpMonitors)}],` +
    `"${dnsMonitors.jsonName}":[${list(DNSMonitorSchema, response.dnsMonitors)}],` +
    `"${totalSize.jsonName}":${response.totalSize}}`;
  return { [ListMonitorsResponseSchema.typeName]: listMonitors as JsonStringWriter };
}
