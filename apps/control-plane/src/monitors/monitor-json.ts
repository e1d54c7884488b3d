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

/** Encodes a message as Connect's JSON serialization would; the server's `jsonEncoders` (our Connect patch). */
export type JsonEncoder = (message: never, options: Partial<JsonWriteOptions>) => Uint8Array;

declare module "@bufbuild/protobuf" {
  interface JsonWriteOptions {
    /** Encoders of their own for some message types, by type name: patches/@connectrpc__connect@2.2.0.patch. */
    jsonEncoders?: Record<string, JsonEncoder>;
  }
}

const SCHEMA_OF_KIND: Record<string, DescMessage> = { http: HTTPMonitorSchema, tcp: TCPMonitorSchema, dns: DNSMonitorSchema };
const COMMA = Buffer.from(",");
const CLOSE_TWO = Buffer.from("}}");

/**
 * The JSON encoders of the answers made of shared monitor messages, for the
 * server's JSON options. The service hands out the same message for a
 * monitor while its row is unchanged (messages.ts), and writing a page of a
 * hundred of them to JSON was a third of a ListMonitors call's CPU: each
 * message is encoded once and its bytes joined into every answer it is in,
 * byte for byte what toJsonString writes. Bytes rather than strings, so that
 * a page (over 100 KB) is not a string V8 makes in its old generation on
 * every call. Only for the options the server uses (every field written,
 * JSON names); any other options get none.
 */
export function monitorJsonEncoders(options: Partial<JsonWriteOptions>): Record<string, JsonEncoder> {
  if (options.alwaysEmitImplicit !== true || options.useProtoFieldName === true) return {};
  const encoded = new WeakMap<object, Buffer>();
  const one = (schema: DescMessage, message: object) => {
    let bytes = encoded.get(message);
    if (bytes === undefined) encoded.set(message, (bytes = Buffer.from(toJsonString(schema, message as never, options))));
    return bytes;
  };
  const list = (parts: Buffer[], schema: DescMessage, messages: readonly object[]) => {
    messages.forEach((message, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(one(schema, message));
    });
  };

  const { httpMonitors, tcpMonitors, dnsMonitors, totalSize } = ListMonitorsResponseSchema.field;
  const [openHttp, openTcp, openDns, openTotal] = [
    `{"${httpMonitors.jsonName}":[`,
    `],"${tcpMonitors.jsonName}":[`,
    `],"${dnsMonitors.jsonName}":[`,
    `],"${totalSize.jsonName}":`,
  ].map((text) => Buffer.from(text));
  const listMonitors = (response: ListMonitorsResponse) => {
    const parts = [openHttp!];
    list(parts, HTTPMonitorSchema, response.httpMonitors);
    parts.push(openTcp!);
    list(parts, TCPMonitorSchema, response.tcpMonitors);
    parts.push(openDns!);
    list(parts, DNSMonitorSchema, response.dnsMonitors);
    parts.push(openTotal!, Buffer.from(`${response.totalSize}}`));
    return Buffer.concat(parts);
  };

  const monitorKey = GetMonitorResponseSchema.field.monitor.jsonName;
  const getMonitor = (response: GetMonitorResponse) => {
    const config = response.monitor?.config;
    if (config?.case === undefined) return Buffer.from(toJsonString(GetMonitorResponseSchema, response, options));
    const open = Buffer.from(`{"${monitorKey}":{"${MonitorSchema.field[config.case].jsonName}":`);
    return Buffer.concat([open, one(SCHEMA_OF_KIND[config.case]!, config.value), CLOSE_TWO]);
  };

  return {
    [ListMonitorsResponseSchema.typeName]: listMonitors as JsonEncoder,
    [GetMonitorResponseSchema.typeName]: getMonitor as JsonEncoder,
  };
}
