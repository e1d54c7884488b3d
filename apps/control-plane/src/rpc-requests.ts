import type { DescMessage } from "@bufbuild/protobuf";
import { Code, ConnectError, createServiceImplSpec, type ConnectRouter } from "@connectrpc/connect";
import type { UniversalHandlerOptions } from "@connectrpc/connect/protocol";
import { jsonNumberCheck } from "@vigil/domain";
import { toConnectError } from "./errors";
import { readableBodies } from "./readable-requests";

type JsonOptions = NonNullable<UniversalHandlerOptions["jsonOptions"]>;

/**
 * Decodes the JSON requests of a method whose request is `input`, refusing
 * what the JSON mapping does not allow before protobuf-es reads it: bytes
 * that are not UTF-8 (TextDecoder's default turns them into U+FFFD, which
 * would be stored), and numbers spelled as protobuf-es would take but the mapping
 * does not (jsonNumberCheck). Connect's JSON serialization decodes every JSON
 * message, once decompressed and out of its envelope, with the `textDecoder`
 * of the handler's jsonOptions (createJsonSerialization in
 * @connectrpc/connect/protocol, for Connect, gRPC and gRPC-Web alike), though
 * UniversalHandlerOptions does not declare that option; what it throws is
 * answered invalid_argument.
 */
function requestDecoder(input: DescMessage) {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const checkNumbers = jsonNumberCheck(input);
  return {
    decode(bytes?: Uint8Array): string {
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        throw new ConnectError("the JSON request is not valid UTF-8", Code.InvalidArgument);
      }
      if (!checkNumbers) return text;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        // protobuf-es says what is wrong with it.
        return text;
      }
      try {
        checkNumbers(json);
      } catch (error) {
        throw toConnectError(error);
      }
      return text;
    },
  };
}

/**
 * `router`, registering every method with a JSON decoder of its own
 * (requestDecoder) in `jsonOptions`: a decoder checks one request type, and
 * only options given to a single method apply to one request type.
 */
function strictJsonRouter(router: ConnectRouter, jsonOptions: JsonOptions): ConnectRouter {
  return {
    handlers: router.handlers,
    service(service, implementation, options) {
      // The spec fills in what the implementation leaves out as unimplemented, as router.service does.
      for (const { method, impl } of Object.values(createServiceImplSpec(service, implementation).methods)) this.rpc(method, impl as never, options);
      return this;
    },
    rpc(method, impl, options) {
      const textDecoder = requestDecoder(method.input);
      router.rpc(method, impl, { ...options, jsonOptions: { ...jsonOptions, ...options?.jsonOptions, textDecoder } as JsonOptions });
      return this;
    },
  };
}

/**
 * The Connect adapter's routes, registered by `register`, reading requests
 * strictly: JSON by requestDecoder, with `jsonOptions` (the adapter's own
 * jsonOptions reach no method), and bodies by readableBodies.
 */
export function strictRoutes(jsonOptions: JsonOptions, register: (router: ConnectRouter) => void): (router: ConnectRouter) => void {
  return (router) => {
    register(strictJsonRouter(router, jsonOptions));
    // The adapter reads router.handlers once the routes are registered.
    router.handlers.forEach((handler, i) => (router.handlers[i] = readableBodies(handler)));
  };
}
