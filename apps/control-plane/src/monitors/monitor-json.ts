import { toJsonString, type DescMessage, type JsonWriteOptions } from "@bufbuild/protobuf";
import {
  GetMonitorResponseSchema,
  ListMonitorsResponseSchema,
  MonitorSchema,
  type GetMonitorResponse,
  type ListMonitorsResponse,
} from "@vigil/proto";
import { MONITOR_MESSAGE_SCHEMAS, type MonitorKind, type MonitorMessageByKind } from "@vigil/domain";
import { MadeOnce } from "./made-once";
import { isRedactedView } from "./messages";
import { MAX_KEPT_RECORDS } from "./records-by-version";

/**
 * Writes a message as Connect's JSON serialization would; the server's `jsonStringWriters` (our Connect patch).
 * It may answer the JSON's UTF-8 bytes instead, which the handler and the Node adapter take as they take an
 * encoded answer.
 */
export type JsonStringWriter = (message: never, options: Partial<JsonWriteOptions>) => string | Uint8Array;

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
 *
 * An answer is joined from its parts (`Array.prototype.join`), never built
 * with `+`: a chain of `+` is a rope that the server flattens to write it,
 * and V8 may decide, after a burst of calls that stayed in flight for a
 * while, to allocate such strings in the old generation from then on. Every
 * answer then outlived its call until the next full collection: 3 MB kept
 * by each young collection at 500 ListMonitors calls a second, pauses of
 * 5-15 ms, and a full collection every 10-20 s. `join` writes one flat string
 * where any new object goes.
 *
 * A page asked again with the same monitors' messages, in the same order, and
 * the same total, is the same text: its last two answers are kept (by its
 * first message; two, since a read key's answer differs from a write key's
 * where a monitor holds credentials, messages.ts) and written again, so a
 * page read over and over allocates no answer at all (80 KB a call at a
 * hundred monitors: 40 MB/s at 500 calls a second, each young collection a
 * chance for a call in flight to wait). From
 * its second time it is answered as its UTF-8 bytes, made once and kept in
 * place of the text: Node joins a string answer to the response's header
 * (`_send` puts both in one packet) and copies the joined text into a new
 * flat string to write it, the same 80 KB a call, where bytes go to the
 * socket as they are, with the header in one writev. Not the first time: a
 * page asked once would pay for both forms, and fresh bytes are memory
 * outside V8's heap that it counts toward its old generation's limit.
 *
 * The two forms of one monitor's message (a read key's and a write key's) are
 * two objects of one id: each form's JSON is kept apart, so that callers of
 * both kinds do not write them over and over in turn.
 */
export function monitorJsonWriters(options: Partial<JsonWriteOptions>): Record<string, JsonStringWriter> {
  if (options.alwaysEmitImplicit !== true || options.useProtoFieldName === true) return {};
  const write = (message: MonitorMessage) => toJsonString(SCHEMAS[message.$typeName]!, message as never, options);
  const [full, redacted] = [new MadeOnce(write, MAX_KEPT_RECORDS), new MadeOnce(write, MAX_KEPT_RECORDS)];
  const jsonOf = (message: MonitorMessage) => (isRedactedView(message) ? redacted : full).of(message);
  const { httpMonitors, tcpMonitors, dnsMonitors, totalSize } = ListMonitorsResponseSchema.field;
  const lastAnswers = new WeakMap<object, LastAnswer[]>();
  const listMonitors = (response: ListMonitorsResponse) => {
    const lists = [response.httpMonitors, response.tcpMonitors, response.dnsMonitors];
    const first = lists.find((list) => list.length > 0)?.[0];
    const kept = first && lastAnswers.get(first);
    const last = kept?.find((answer) => answer.total === response.totalSize && answer.lists.every((list, i) => sameObjects(list, lists[i]!)));
    if (last) {
      if (typeof last.answer === "string") last.answer = Buffer.from(last.answer);
      return last.answer;
    }
    const json = writeListMonitors(response);
    if (first) lastAnswers.set(first, [{ lists, total: response.totalSize, answer: json }, ...(kept || [])].slice(0, 2));
    return json;
  };
  const writeListMonitors = (response: ListMonitorsResponse) => {
    const parts: string[] = [];
    const add = (opening: string, messages: readonly MonitorMessage[]) => {
      parts.push(opening);
      messages.forEach((message, i) => {
        if (i > 0) parts.push(",");
        parts.push(jsonOf(message));
      });
    };
    add(`{"${httpMonitors.jsonName}":[`, response.httpMonitors);
    add(`],"${tcpMonitors.jsonName}":[`, response.tcpMonitors);
    add(`],"${dnsMonitors.jsonName}":[`, response.dnsMonitors);
    parts.push(`],"${totalSize.jsonName}":${response.totalSize}}`);
    return parts.join("");
  };

  const monitorKey = GetMonitorResponseSchema.field.monitor.jsonName;
  const getMonitor = (response: GetMonitorResponse) => {
    const config = response.monitor?.config;
    if (config?.case === undefined) return toJsonString(GetMonitorResponseSchema, response, options);
    const field = MonitorSchema.field[config.case];
    return [`{"${monitorKey}":{"${field.jsonName}":`, jsonOf(config.value), "}}"].join("");
  };

  return {
    [ListMonitorsResponseSchema.typeName]: listMonitors as JsonStringWriter,
    [GetMonitorResponseSchema.typeName]: getMonitor as JsonStringWriter,
  };
}

type MonitorMessage = MonitorMessageByKind[MonitorKind];
type LastAnswer = { lists: readonly (readonly object[])[]; total: number; answer: string | Buffer };
const SCHEMAS: Record<string, DescMessage> = Object.fromEntries(Object.values(MONITOR_MESSAGE_SCHEMAS).map((schema) => [schema.typeName, schema]));

const sameObjects = (a: readonly object[], b: readonly object[]) => a.length === b.length && a.every((item, i) => item === b[i]);
