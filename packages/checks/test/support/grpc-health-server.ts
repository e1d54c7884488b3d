/**
 * A gRPC health server on loopback (grpc.health.v1.Health over HTTP/2, plain or TLS) whose statuses a test sets
 * and flips, and which records the metadata each call carried. Connect's Node adapter serves the gRPC protocol.
 */
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "@vigil/proto/grpc";

export interface GrpcHealthServer {
  port: number;
  /** host:port on 127.0.0.1. */
  uri: string;
  /** Sets a service's status ("" is the whole server); a service never set is unknown (NOT_FOUND). */
  set(service: string, status: keyof typeof HealthCheckResponse_ServingStatus): void;
  /** The metadata of each call received, oldest first. */
  readonly calls: { service: string; metadata: Record<string, string> }[];
  /** Calls wait this long before answering (a slow target). */
  delayMs: number;
  close(): Promise<void>;
}

export interface GrpcHealthServerOptions {
  /** Serve TLS with this key and chain. */
  tls?: { key: string; cert: string };
  /** Serve no health service at all: every call is answered UNIMPLEMENTED. */
  unimplemented?: boolean;
}

export async function startGrpcHealthServer(options: GrpcHealthServerOptions = {}): Promise<GrpcHealthServer> {
  const statuses = new Map<string, HealthCheckResponse_ServingStatus>([["", HealthCheckResponse_ServingStatus.SERVING]]);
  const calls: GrpcHealthServer["calls"] = [];
  const routes = (router: ConnectRouter) => {
    if (options.unimplemented) return;
    router.service(Health, {
      async check(request, context) {
        calls.push({ service: request.service, metadata: Object.fromEntries(context.requestHeader.entries()) });
        if (server.delayMs > 0) await delay(server.delayMs, context.signal);
        const status = statuses.get(request.service);
        if (status === undefined) throw new ConnectError(`unknown service ${request.service}`, Code.NotFound);
        return { status };
      },
    });
  };
  const handler = connectNodeAdapter({ routes, grpc: true, connect: false, grpcWeb: false });
  const listener = options.tls ? http2.createSecureServer({ ...options.tls, allowHTTP1: false }, handler) : http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  listener.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  // A client refused during the handshake (a test's expired certificate) is not the server's failure.
  listener.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as AddressInfo).port;
  const server: GrpcHealthServer = {
    port,
    uri: `127.0.0.1:${port}`,
    set: (service, status) => void statuses.set(service, HealthCheckResponse_ServingStatus[status]),
    calls,
    delayMs: 0,
    close: () => {
      for (const session of sessions) session.destroy();
      return new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
  return server;
}

/** Waits `ms`, or until the client gives up on the call (then rejects, so nothing is written to a closed stream). */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new ConnectError("the client went away", Code.Canceled));
    });
  });
}
