import http from "node:http";
import http2 from "node:http2";
import net, { type AddressInfo, type Socket } from "node:net";
import { REQUEST_LIMITS, http1ServerOptions, type ConnectionLimits } from "@vigil/domain";
import type { Request, Response } from "./json";

const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n");

export interface Listener {
  address(): AddressInfo;
  close(): Promise<void>;
}

/**
 * Serves HTTP/1.1 and cleartext HTTP/2 (h2c with prior knowledge, as gRPC
 * clients speak it) on one port. Node's HTTP/2 server cannot fall back to
 * HTTP/1.1 without TLS, so each connection's first bytes pick the server.
 * Every connection is held to `limits` (docs/limits.md).
 */
export async function listenHttp1AndH2c(
  handler: (req: Request, res: Response) => void,
  options: { port: number; host: string; limits: ConnectionLimits },
): Promise<Listener> {
  const { limits } = options;
  const http1 = http.createServer(http1ServerOptions(limits), handler as http.RequestListener);
  // Node starts checking the headers and request timeouts when a server listens; this one is handed its connections instead.
  http1.emit("listening");
  const h2c = http2.createServer(
    { settings: { maxHeaderListSize: limits.maxHeaderBytes, maxConcurrentStreams: REQUEST_LIMITS.maxConcurrentStreams } },
    handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  );
  // A session without any frame for this long is closed (the server destroys a session whose timeout nobody handles).
  h2c.setTimeout(limits.idleTimeoutMs);
  const sockets = new Set<Socket>();
  const sessions = new Set<http2.Http2Session>();
  h2c.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });

  const server = net.createServer((socket) => {
    sockets.add(socket);
    // Node's HTTP server turns Nagle's algorithm off for its connections, but this one accepts them itself.
    // With it on, the last part of an answer written in two (a 100 KB page is two segments on loopback)
    // waited for the client's delayed acknowledgement of the first.
    socket.setNoDelay(true);
    socket.once("close", () => sockets.delete(socket));
    // A connection that never sends a byte is no request yet for either server to time out.
    socket.setTimeout(limits.headersTimeoutMs, () => socket.destroy());
    socket.once("data", (first: Buffer) => {
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(first);
      const isH2 = first.subarray(0, H2_PREFACE.length).equals(H2_PREFACE.subarray(0, Math.min(first.length, H2_PREFACE.length)));
      if (isH2) {
        // The HTTP/2 session reads the socket natively, taking the bytes put back first.
        h2c.emit("connection", socket);
      } else {
        http1.emit("connection", socket);
        socket.resume();
      }
    });
  });
  server.maxConnections = limits.maxConnections;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });

  return {
    address: () => server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.close();
        http1.closeIdleConnections();
        http1.close();
        // Give in-flight requests a moment, then drop what is left.
        setTimeout(() => sockets.forEach((socket) => socket.destroy()), 2_000).unref();
      }),
  };
}
