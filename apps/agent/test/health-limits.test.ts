import net from "node:net";
import { Registry } from "prom-client";
import type { ConnectionLimits } from "@vigil/domain";
import { startHealthServer, type HealthServer } from "../src/health";

/** Short timeouts, so that closed connections are seen soon; no test measures them. */
const limits: ConnectionLimits = { maxConnections: 8, maxHeaderBytes: 2048, headersTimeoutMs: 300, requestTimeoutMs: 1_000, idleTimeoutMs: 300 };

/** A raw connection: what it received once the server closed it. */
function exchange(port: number, send: (socket: net.Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => send(socket));
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    socket.once("close", () => resolve(received));
  });
}

describe("the agent's health server limits", () => {
  let server: HealthServer;
  beforeAll(async () => {
    const status = { region: "hostA-ams", connected: () => true, running: () => 0 };
    server = await startHealthServer(status, 0, "127.0.0.1", new Registry(), limits);
  });
  afterAll(() => server.close());

  it("closes a connection sending its headers byte by byte", async () => {
    let drip: NodeJS.Timeout | undefined;
    const received = await exchange(server.port, (socket) => {
      const request = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(1000);
      let sent = 0;
      drip = setInterval(() => !socket.destroyed && socket.write(request[sent++] ?? "a"), 20);
    });
    clearInterval(drip);
    expect(received).not.toContain("200 OK");
  });

  it("answers 431 to oversized headers", async () => {
    const received = await exchange(server.port, (socket) => socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(4096)}\r\n\r\n`));
    expect(received).toMatch(/^HTTP\/1\.1 431 /);
  });

  it("closes an idle keep-alive connection after answering", async () => {
    const received = await exchange(server.port, (socket) => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    expect(received).toMatch(/^HTTP\/1\.1 200 OK/);
  });
});
