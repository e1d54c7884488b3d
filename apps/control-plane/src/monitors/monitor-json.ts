import { toJsonString, type DescMessage, type JsonWriteOptions } from "@bufbuild/protobuf";
import {
  DNSMonitorSchema,
  GetMonitorResponseSchema,
  HTTPMonitorSchema,
  ListMonitorsResponseSchema,
  MonitorSchema,
  TCPMonitorSchema,
  type GetMonitorResponse,
  type ListMonitorsResponse,
} from "@vigil/proto";

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
 * server's JSON options. The service hands out the same message for a
 * monitor while its row is unchanged (messages.ts), and writing a page of a
 * hundred of them to JSON was a third of a ListMonitors call's CPU: each
 * message's JSON is written once and joined into every answer it is in,
 * byte for byte what toJsonString writes. Only for the options the server
 * uses (every field written, JSON names); any other options get none.
 */
export function monitorJsonWriters(options: Partial<JsonWriteOptions>): Record<string, JsonStringWriter> {
  if (options.alwaysEmitImplicit !== true || options.useProtoFieldName === true) return {};
  const written = new WeakMap<object, string>();
  const one = (schema: DescMessage, message: object) => {
    let json = written.get(message);
    if (json === undefined) written.set(message, (json = toJsonString(schema, message as never, options)));
    return json;
  };
  const list = (schema: DescMessage, messages: readonly object[]) => {
    let json = "";
    for (const message of messages) json += json === "" ? one(schema, message) : `,${one(schema, message)}`;
    return json;
  };

  const { httpMonitors, tcpMonitors, dnsMonitors, totalSize } = ListMonitorsResponseSchema.field;
  const listMonitors = (response: ListMonitorsResponse) =>
    `{"${httpMonitors.jsonName}":[${list(HTTPMonitorSchema, response.httpMonitors)}],` +
    `"${tcpMonitors.jsonName}":[${list(TCPMonitorSchema, response.tcpMonitors)}],` +
    `"${dnsMonitors.jsonName}":[${list(DNSMonitorSchema, response.dnsMonitors)}],` +
    `"${totalSize.jsonName}":${response.totalSize}}`;

  const monitorKey = GetMonitorResponseSchema.field.monitor.jsonName;
  const getMonitor = (response: GetMonitorResponse) => {
    const config = response.monitor?.config;
    if (config?.case === undefined) return toJsonString(GetMonitorResponseSchema, response, options);
    const field = MonitorSchema.field[config.case];
    return `{"${monitorKey}":{"${field.jsonName}":${one(field.message!, config.value)}}}`;
  };

  return {
    [ListMonitorsResponseSchema.typeName]: listMonitors as JsonStringWriter,
    [GetMonitorResponseSchema.typeName]: getMonitor as JsonStringWriter,
  };
}
