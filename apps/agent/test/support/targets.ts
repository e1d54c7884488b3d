import { createServer as createHttpServer, type ServerResponse } from "node:http";
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

/** An HTTP target that answers late, and tells when a check has reached it. */
export interface SlowTarget extends Target {
  /** Resolves when the first request arrives: a check is then in progress. */
  firstRequest: Promise<void>;
}

/** Answers every HTTP request with 200 after `delayMs`. */
export function slowHttpTarget(delayMs: number): Promise<SlowTarget> {
  return httpTargetAnswering((response) => {
    const timer = setTimeout(() => response.end("ok"), delayMs);
    response.once("close", () => clearTimeout(timer));
  });
}

/** Answers HTTP requests with 200 only once `release()` is called: a check stays in progress until the test says. */
export async function heldHttpTarget(): Promise<SlowTarget & { release(): void }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { ...(await httpTargetAnswering((response) => void released.then(() => response.end("ok")))), release };
}

async function httpTargetAnswering(answer: (response: ServerResponse) => void): Promise<SlowTarget> {
  let count = 0;
  let arrived!: () => void;
  const firstRequest = new Promise<void>((resolve) => (arrived = resolve));
  const server = createHttpServer((request, response) => {
    count++;
    arrived();
    request.resume();
    answer(response);
  });
  return { ...(await listen(server, () => count)), firstRequest };
}

/** A TCP target that accepts connections and never answers: checks of it hang until their timeout. */
export interface HangingTarget extends Target {
  /** Connections open now. */
  open(): number;
}

export async function hangingTarget(): Promise<HangingTarget> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.once("close", () => sockets.delete(socket));
  });
  const target = await listen(server, () => count);
  return {
    ...target,
    open: () => sockets.size,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return target.close();
    },
  };
}
