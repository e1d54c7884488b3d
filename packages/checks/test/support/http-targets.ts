/**
 * HTTP and HTTPS targets for check tests: real servers on 127.0.0.1, port 0,
 * that record what they received, so a test can assert both what the check
 * reported and what the target saw.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import * as net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A request as the target received it, body read in full. */
export interface SeenRequest {
  method: string;
  /** Path and query. */
  url: string;
  /** Node's view: lower-case names. */
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Which connection (1, 2, ...) carried it. */
  connection: number;
}

/** Answers one request; `req.socket` is there for targets that misbehave on purpose. */
export type TargetHandler = (req: http.IncomingMessage, res: http.ServerResponse, seen: SeenRequest) => void;

export interface HttpTarget {
  /** "http://127.0.0.1:port" (or https://), without a trailing slash. */
  readonly origin: string;
  readonly port: number;
  readonly requests: readonly SeenRequest[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** Starts a plain HTTP target. */
export function startHttpTarget(handler: TargetHandler): Promise<HttpTarget> {
  return serve(http.createServer(), "http", handler);
}

/** Starts an HTTPS target with the given certificate and key (PEM). */
export function startHttpsTarget(credentials: { cert: string; key: string }, handler: TargetHandler): Promise<HttpTarget> {
  return serve(https.createServer(credentials), "https", handler);
}

async function serve(server: http.Server, scheme: "http" | "https", handler: TargetHandler): Promise<HttpTarget> {
  const requests: SeenRequest[] = [];
  // Connections are told apart by the client's address and port, which the TCP and the TLS socket share.
  const numbers = new Map<string, number>();
  const peer = (socket: net.Socket) => `${socket.remoteAddress}:${socket.remotePort}`;
  let connections = 0;
  server.on("connection", (socket: net.Socket) => {
    connections += 1;
    numbers.set(peer(socket), connections);
  });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const seen: SeenRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        connection: numbers.get(peer(req.socket)) ?? 0,
      };
      requests.push(seen);
      handler(req, res, seen);
    });
  });
  // A client that gives up mid-response is normal in these tests.
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    origin: `${scheme}://127.0.0.1:${port}`,
    port,
    requests,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A self-signed certificate for localhost and 127.0.0.1, made by the openssl
 * command (Node cannot create certificates); null when openssl is missing.
 */
/** A self-signed certificate for localhost and 127.0.0.1, made with openssl (which the tests require). */
export function selfSignedCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "vigil-cert-"));
  try {
    const keyFile = join(dir, "key.pem");
    const certFile = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
        ...["-keyout", keyFile, "-out", certFile, "-days", "2", "-subj", "/CN=localhost"],
        ...["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
      ],
      { stdio: "ignore" },
    );
    return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
