import http2 from "node:http2";

/** What a raw request got back; the body as Latin-1 text, one character a byte. */
export interface RawAnswer {
  status: number;
  /** From the headers, the trailers, or a gRPC-Web body's trailer frame. */
  grpcStatus: string | undefined;
  grpcMessage: string | undefined;
  body: string;
}

/**
 * Requests sent byte for byte as given, as an attacker sends them: over
 * HTTP/1.1 (fetch) or over one h2c session, which close() ends.
 */
export function rawRpc(baseUrl: string) {
  let h2: http2.ClientHttp2Session | undefined;
  const noBody = (method: string) => method === "GET" || method === "HEAD";

  const overHttp1 = async (method: string, path: string, headers: Record<string, string>, body?: Uint8Array): Promise<RawAnswer> => {
    const res = await fetch(baseUrl + path, { method, headers, body: noBody(method) ? undefined : body });
    const bytes = await bodyOf(res);
    const trailer = grpcWebTrailer(bytes);
    return {
      status: res.status,
      grpcStatus: res.headers.get("grpc-status") ?? trailer?.["grpc-status"],
      grpcMessage: grpcMessage(res.headers.get("grpc-message") ?? trailer?.["grpc-message"]),
      body: bytes.toString("latin1"),
    };
  };

  const overHttp2 = (method: string, path: string, headers: Record<string, string>, body?: Uint8Array): Promise<RawAnswer> =>
    new Promise((resolve, reject) => {
      // The server closes a session idle past its timeout: the next request opens another.
      if (!h2 || h2.closed || h2.destroyed) {
        h2 = http2.connect(baseUrl);
        h2.on("error", () => undefined);
      }
      const stream = h2.request({ ":method": method, ":path": path, ...headers }, { endStream: false });
      let status = 0;
      const fields: Record<string, string | undefined> = {};
      const chunks: Buffer[] = [];
      const take = (h: http2.IncomingHttpHeaders) => {
        for (const name of ["grpc-status", "grpc-message"]) fields[name] = (h[name] as string | undefined) ?? fields[name];
      };
      stream.on("response", (h) => {
        status = Number(h[":status"]);
        take(h);
      });
      stream.on("trailers", take);
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      // A watch the request opened stays open: what it sent within a while is its answer.
      stream.on("response", () => setTimeout(() => stream.close(), OPEN_STREAM_READ_MS).unref());
      stream.on("close", () => {
        const bytes = Buffer.concat(chunks);
        const trailer = grpcWebTrailer(bytes);
        resolve({
          status,
          grpcStatus: fields["grpc-status"] ?? trailer?.["grpc-status"],
          grpcMessage: grpcMessage(fields["grpc-message"] ?? trailer?.["grpc-message"]),
          body: bytes.toString("latin1"),
        });
      });
      stream.on("error", reject);
      stream.end(noBody(method) ? undefined : body);
    });

  return { overHttp1, overHttp2, close: () => h2?.close() };
}

/** How long an answer that stays open (a server stream, such as WatchMonitorOverviews) is read. */
const OPEN_STREAM_READ_MS = 1_000;

async function bodyOf(res: Response): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const reader = res.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const cut = setTimeout(() => void reader.cancel(), OPEN_STREAM_READ_MS);
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  } finally {
    clearTimeout(cut);
  }
  return Buffer.concat(chunks);
}

/** The fields of a gRPC-Web body's trailer frame (flag 0x80), if it has one. */
function grpcWebTrailer(body: Buffer): Record<string, string> | undefined {
  let offset = 0;
  while (offset + 5 <= body.length) {
    const flags = body.readUInt8(offset);
    const length = body.readUInt32BE(offset + 1);
    const frame = body.subarray(offset + 5, offset + 5 + length);
    if (flags & 0x80) {
      const fields: Record<string, string> = {};
      for (const line of frame.toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) fields[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      return fields;
    }
    offset += 5 + length;
  }
  return undefined;
}

/** grpc-message is percent-encoded; a malformed one is kept as sent. */
function grpcMessage(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
