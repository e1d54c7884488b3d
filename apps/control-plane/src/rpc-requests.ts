import type { DescMessage } from "@bufbuild/protobuf";
import { Code, ConnectError, createServiceImplSpec, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { assertByteStreamRequest, type UniversalHandler, type UniversalHandlerOptions, type UniversalServerRequest } from "@connectrpc/connect/protocol";
import { jsonNumberCheck } from "@vigil/domain";
import { toConnectError } from "./errors";

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

/** gRPC and gRPC-Web, in binary or JSON: the protocols that envelope their messages. */
const ENVELOPED = /^application\/grpc(-web)?(\+|;|$)/i;

/**
 * A unary call over gRPC or gRPC-Web whose body is empty has no request
 * message. Connect answers that unimplemented, the code gRPC's table gives a
 * cardinality violation, and before any interceptor runs (ensureSingle in
 * @connectrpc/connect/protocol's invoke-implementation); a request without
 * its message is a malformed request like any other, so an empty body fails
 * with invalid_argument where the protocol reads it. Other bodies pass as
 * they come.
 */
function requireRequestMessage(handler: UniversalHandler): UniversalHandler {
  if (handler.method.methodKind !== "unary") return handler;
  const wrapped = (req: UniversalServerRequest) => {
    if (ENVELOPED.test(req.header.get("content-type") ?? "")) {
      assertByteStreamRequest(req);
      req.body = nonEmpty(req.body);
    }
    return handler(req);
  };
  return Object.assign(wrapped, handler);
}

async function* nonEmpty(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  let received = false;
  for await (const chunk of body) {
    received ||= chunk.byteLength > 0;
    yield chunk;
  }
  if (!received) throw new ConnectError("no request message: the body is empty, and a unary method takes one message", Code.InvalidArgument);
}

/**
 * The Connect adapter's routes, registered by `register`, reading requests
 * strictly: JSON by requestDecoder, with `jsonOptions` (the adapter's own
 * jsonOptions reach no method), and gRPC and gRPC-Web bodies by
 * requireRequestMessage.
 */
export function strictRoutes(jsonOptions: JsonOptions, register: (router: ConnectRouter) => void): (router: ConnectRouter) => void {
  return (router) => {
    register(strictJsonRouter(router, jsonOptions));
    // The adapter reads router.handlers once the routes are registered.
    router.handlers.forEach((handler, i) => (router.handlers[i] = requireRequestMessage(handler)));
  };
}

/**
 * A request gate refusing a Connect GET whose query is not percent-encoded
 * UTF-8. Connect reads the message of a GET from the query with
 * URLSearchParams, which turns such bytes into U+FFFD before the JSON
 * decoder sees them.
 */
export function refuseMalformedQuery(context: HandlerContext): void {
  if (context.requestMethod !== "GET") return;
  try {
    decodeURIComponent(new URL(context.url).search);
  } catch {
    throw new ConnectError("the query is not percent-encoded UTF-8", Code.InvalidArgument);
  }
}
