import type { DescMethodServerStreaming, DescMethodUnary, DescService, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { createClient, type Transport } from "@connectrpc/connect";
import { credentialsOf, runCall } from "./calls.js";
import { toVigilError } from "./errors.js";
import type { CallOptions, ResolvedOptions, StreamOptions } from "./options.js";

/**
 * A service's methods under their generated names (`listMonitors`): a unary one answers a promise and takes
 * per-call options; a server stream (`watchMonitorOverviews`) answers its messages as they come, until the server
 * ends it, it fails, or `options.signal` aborts it.
 */
export type ServiceClient<S extends DescService> = {
  [K in keyof S["method"]]: S["method"][K] extends DescMethodUnary<infer I, infer O>
    ? (request: MessageInitShape<I>, options?: CallOptions) => Promise<MessageShape<O>>
    : S["method"][K] extends DescMethodServerStreaming<infer I, infer O>
      ? (request: MessageInitShape<I>, options?: StreamOptions) => AsyncIterable<MessageShape<O>>
      : never;
};

type CallOf<T> = (request: unknown, options: { signal?: AbortSignal; headers: Record<string, string> }) => T;
type UnaryCall = CallOf<Promise<unknown>>;
type StreamCall = CallOf<AsyncIterable<unknown>>;

/**
 * A server stream's messages, until the server ends it or the caller's signal aborts it (which ends the loop
 * quietly, as a `break` does); its failures as VigilErrors. Never retried: the caller knows where to resume.
 */
async function* streamed(config: ResolvedOptions, call: StreamCall, request: unknown, options: StreamOptions = {}): AsyncGenerator<unknown> {
  try {
    yield* call(request, { signal: options.signal, headers: credentialsOf(config) });
  } catch (error) {
    if (options.signal?.aborted) return;
    throw toVigilError(error);
  }
}

/** Whether a method may be tried again: its proto declares it free of side effects. */
const isRetryable = (method: DescService["methods"][number]) =>
  method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS;

export function serviceClient<S extends DescService>(service: S, transport: Transport, config: ResolvedOptions): ServiceClient<S> {
  const connect = createClient(service, transport) as unknown as Record<string, UnaryCall & StreamCall>;
  const methods = service.methods
    .filter((method) => method.methodKind === "unary" || method.methodKind === "server_streaming")
    .map((method) => {
      const call = connect[method.localName]!;
      if (method.methodKind === "server_streaming") return [method.localName, (request: unknown, options?: StreamOptions) => streamed(config, call, request, options)] as const;
      const invoke = (request: unknown, options: CallOptions = {}) =>
        runCall(config, isRetryable(method), options, (headers, signal) => call(request, { signal, headers }));
      return [method.localName, invoke] as const;
    });
  return Object.fromEntries(methods) as ServiceClient<S>;
}
