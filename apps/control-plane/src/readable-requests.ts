import { fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import { assertByteStreamRequest, type Compression, type UniversalHandler, type UniversalServerRequest } from "@connectrpc/connect/protocol";
import { LIMITS } from "@vigil/domain";

/*
 * A request the server cannot read is the client's mistake: invalid_argument
 * (docs/limits.md, Malformed requests). connect-es 2.2 answers some of them
 * internal (a 500), following gRPC's rule that a library never raises
 * invalid_argument (connectrpc/connect-go#595; what a server should answer is
 * still open in connectrpc/connectrpc.com#169): protobuf that does not parse
 * (createBinarySerialization), a compressed envelope without its encoding
 * (envelopeDecompress, whose own comment says invalid_argument), a stream
 * zlib finds cut (connect-node's wrapZLibErrors), a GET's message that is not
 * base64. They are raised while the library reads the request, before any
 * interceptor, with no option to change their code; so the request is read
 * here first, as the library will read it, and what it would fail on is
 * refused with invalid_argument.
 */

/**
 * The compressions the server takes: connect-node's gzip and br, with a body
 * that does not decompress refused invalid_argument whatever zlib's error.
 */
export const REQUEST_COMPRESSIONS: Compression[] = [compressionGzip, compressionBrotli].map((compression) => ({
  name: compression.name,
  compress: (bytes) => compression.compress(bytes),
  decompress: (bytes, readMaxBytes) =>
    compression.decompress(bytes, readMaxBytes).catch((reason: unknown) => {
      const error = ConnectError.from(reason);
      throw error.code === Code.Internal ? new ConnectError(error.rawMessage, Code.InvalidArgument, undefined, undefined, reason) : error;
    }),
}));

/** The compression a request names (null for none), or undefined for one the server does not take, which Connect refuses itself. */
function compressionNamed(name: string | null): Compression | null | undefined {
  if (name === null || name === "identity") return null;
  return REQUEST_COMPRESSIONS.find((compression) => compression.name === name);
}

function parseBinary(input: DescMessage, bytes: Uint8Array): void {
  try {
    fromBinary(input, bytes);
  } catch (error) {
    throw new ConnectError(`parse binary: ${error instanceof Error ? error.message : String(error)}`, Code.InvalidArgument);
  }
}

/** How a protocol frames a request body: its content type, the header naming its compression, and, if enveloped, the flag of an envelope that holds no message. */
interface Framing {
  contentType: RegExp;
  encodingHeader: string;
  enveloped: boolean;
  endFlag?: number;
}

// The content types of connect-es' protocols (protocol-*/content-type.js).
const FRAMINGS: Framing[] = [
  { contentType: /^application\/(?:json(?:; ?charset=utf-?8)?|proto)$/i, encodingHeader: "content-encoding", enveloped: false },
  { contentType: /^application\/connect\+(?:json(?:; ?charset=utf-?8)?|proto)$/i, encodingHeader: "connect-content-encoding", enveloped: true, endFlag: 0b10 },
  { contentType: /^application\/grpc(?:\+(?:json(?:; ?charset=utf-?8)?|proto))?$/i, encodingHeader: "grpc-encoding", enveloped: true },
  { contentType: /^application\/grpc-web(?:\+(?:json(?:; ?charset=utf-?8)?|proto))?$/i, encodingHeader: "grpc-encoding", enveloped: true, endFlag: 0x80 },
];
const COMPRESSED_FLAG = 0b1;

type Check = (flags: number, data: Uint8Array) => Promise<void>;

/**
 * What reads a request's message, or each of its envelopes, as the library
 * will: a compressed envelope needs a compression, and a binary message is
 * decompressed and parsed. Undefined where the library's own reading
 * refuses what it cannot read (JSON, a compression it does not take).
 */
function messageCheck(req: UniversalServerRequest, input: DescMessage, framing: Framing): Check | undefined {
  const binary = !/json/i.test(req.header.get("content-type") ?? "");
  const compression = compressionNamed(req.header.get(framing.encodingHeader));
  if (compression === undefined || (!binary && (compression !== null || !framing.enveloped))) return undefined;
  return async (flags, data) => {
    const compressed = framing.enveloped ? (flags & COMPRESSED_FLAG) === COMPRESSED_FLAG : compression !== null;
    if (compressed && compression === null) throw new ConnectError(`the message is compressed, but ${framing.encodingHeader} names no compression`, Code.InvalidArgument);
    const holdsMessage = framing.endFlag === undefined || (flags & framing.endFlag) !== framing.endFlag;
    if (!binary || !holdsMessage) return;
    parseBinary(input, compressed ? await compression!.decompress(data, LIMITS.requestBodyBytes) : data);
  };
}

const joined = (chunks: Uint8Array[]): Uint8Array => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));

/** Reads what is left of a body and drops it. */
async function drain(chunks: AsyncIterator<Uint8Array>): Promise<void> {
  try {
    while (!(await chunks.next()).done);
  } catch {
    // The request failed or closed: nothing is left to read.
  }
}

/**
 * The body, handed on once `check` took the message, or each envelope, it
 * holds. Past the size limit, handed on as it comes: Connect refuses it.
 * With `requireMessage`, an empty body is refused.
 */
async function* checked(body: AsyncIterable<Uint8Array>, enveloped: boolean, check: Check | undefined, requireMessage: boolean): AsyncIterable<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  let ended = false;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  /** Bytes held before the next envelope can be read: its header, then all of it. */
  let needed = 5;
  let received = false;
  let passing = check === undefined;
  try {
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      const chunk = next.value;
      received ||= chunk.byteLength > 0;
      if (passing) {
        yield chunk;
        continue;
      }
      held.push(chunk);
      heldBytes += chunk.byteLength;
      if (!enveloped) {
        passing = heldBytes > LIMITS.requestBodyBytes;
      } else if (heldBytes >= needed) {
        let bytes = joined(held);
        needed = 5;
        while (bytes.byteLength >= 5) {
          const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
          if (length > LIMITS.requestBodyBytes) {
            passing = true;
            break;
          }
          if (bytes.byteLength < 5 + length) {
            needed = 5 + length;
            break;
          }
          await check!(bytes[0]!, bytes.subarray(5, 5 + length));
          yield bytes.subarray(0, 5 + length);
          bytes = bytes.subarray(5 + length);
        }
        held = [bytes];
        heldBytes = bytes.byteLength;
      }
      if (passing) {
        yield* held;
        held = [];
      }
    }
    ended = true;
  } finally {
    // A body refused before its end (here or by Connect) is read to its end: stopping would
    // destroy the request (Readable's iterator does), and a keep-alive HTTP/1.1 connection with it
    // hangs its next request until the request timeout. Node reads a body no one reads the same way.
    if (!ended) void drain(chunks);
  }
  if (!enveloped && !passing) await check!(0, joined(held));
  // Of an envelope, what came before the body ended: Connect says it is cut.
  yield* held;
  if (requireMessage && !received) throw new ConnectError("no request message: the body is empty, and a unary method takes one message", Code.InvalidArgument);
}

/**
 * The handler, refusing with invalid_argument a POST body that Connect would
 * fail to read as internal, and a unary gRPC or gRPC-Web call without its
 * request message (Connect answers that unimplemented, the code of a
 * streaming call's cardinality violation). Other bodies pass as they come.
 */
export function readableBodies(handler: UniversalHandler): UniversalHandler {
  const wrapped = (req: UniversalServerRequest) => {
    const framing = req.method === "POST" ? FRAMINGS.find((f) => f.contentType.test(req.header.get("content-type") ?? "")) : undefined;
    if (framing !== undefined) {
      assertByteStreamRequest(req);
      const requireMessage = framing.enveloped && handler.method.methodKind === "unary";
      req.body = checked(req.body, framing.enveloped, messageCheck(req, handler.method.input, framing), requireMessage);
    }
    return handler(req);
  };
  return Object.assign(wrapped, handler);
}

/**
 * A request gate refusing a Connect GET whose message Connect would fail to
 * read as internal: a base64 message that is not base64, or a binary one
 * that is not a protobuf message. Also refused: a query that is not
 * percent-encoded UTF-8, which Connect reads with URLSearchParams, turning
 * such bytes into U+FFFD before the JSON decoder sees them.
 */
export async function readableQuery(context: HandlerContext): Promise<void> {
  if (context.requestMethod !== "GET") return;
  const url = new URL(context.url);
  try {
    decodeURIComponent(url.search);
  } catch {
    throw new ConnectError("the query is not percent-encoded UTF-8", Code.InvalidArgument);
  }
  const query = url.searchParams;
  const message = query.get("message") ?? "";
  let bytes: Uint8Array;
  try {
    bytes = query.get("base64") === "1" ? base64Decode(message) : new TextEncoder().encode(message);
  } catch {
    throw new ConnectError("the message is not base64", Code.InvalidArgument);
  }
  const compression = compressionNamed(query.get("compression"));
  if (query.get("encoding") !== "proto" || compression === undefined) return;
  if (compression) bytes = await compression.decompress(bytes, LIMITS.requestBodyBytes);
  parseBinary(context.method.input, bytes);
}
