import { createServer as createHttpServer } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from "node:net";

/** Loopback servers that checks run against. */
export interface Target {
  port: number;
  /** Requests (HTTP) or connections (TCP) received so far. */
  hits(): number;
  close(): Promise<void>;
}

function listen(server: Server, hits: () => number): Promise<Target> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        hits,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            if ("closeAllConnections" in server) (server as { closeAllConnections(): void }).closeAllConnections();
          }),
      }),
    );
  });
}

/** Accepts TCP connections and closes them at once. */
export function tcpTarget(): Promise<Target> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    count++;
    socket.on("error", () => {});
    socket.end();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return listen(server, () => count).then((target) => ({
    ...target,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return target.close();
    },
  }));
}

/** A loopback port that nothing listens on. */
export async function closedPort(): Promise<number> {
  const target = await tcpTarget();
  await target.close();
  return target.port;
}

/** Answers every HTTP request with 200 after `delayMs`; `onRequest` runs as each one arrives. */
export function slowHttpTarget(delayMs: number, onRequest?: () => void): Promise<Target> {
  let count = 0;
  const server = createHttpServer((request, response) => {
    count++;
    onRequest?.();
    request.resume();
    const timer = setTimeout(() => response.end("ok"), delayMs);
    response.once("close", () => clearTimeout(timer));
  });
  return listen(server, () => count);
}
