import type { DescMethodUnary, DescService, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { createClient, type Transport } from "@connectrpc/connect";
import { runCall } from "./calls.js";
import type { CallOptions, ResolvedOptions } from "./options.js";

/** A service's unary methods under their generated names (`listMonitors`), each taking per-call options. */
export type ServiceClient<S extends DescService> = {
  [K in keyof S["method"]]: S["method"][K] extends DescMethodUnary<infer I, infer O>
    ? (request: MessageInitShape<I>, options?: CallOptions) => Promise<MessageShape<O>>
    : never;
};

type UnaryCall = (request: unknown, options: { signal: AbortSignal; headers: Record<string, string> }) => Promise<unknown>;

/** Whether a method may be tried again: its proto declares it free of side effects. */
const isRetryable = (method: DescService["methods"][number]) =>
  method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS;

export function serviceClient<S extends DescService>(service: S, transport: Transport, config: ResolvedOptions): ServiceClient<S> {
  const connect = createClient(service, transport) as unknown as Record<string, UnaryCall>;
  const methods = service.methods
    .filter((method) => method.methodKind === "unary")
    .map((method) => {
      const call = connect[method.localName]!;
      const invoke = (request: unknown, options: CallOptions = {}) =>
        runCall(config, isRetryable(method), options, (headers, signal) => call(request, { signal, headers }));
      return [method.localName, invoke] as const;
    });
  return Object.fromEntries(methods) as ServiceClient<S>;
}
