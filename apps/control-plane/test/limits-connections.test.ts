import http2 from "node:http2";
import net from "node:net";
import { DEFAULT_CONNECTION_LIMITS, LIMITS, type ConnectionLimits } from "@vigil/domain";
import { listenHttp1AndH2c, type Listener } from "../src/http/listener";
import { startTestApi, jsonOf, type TestApi } from "./support/api";

/** Short timeouts, so that the tests see connections closed without waiting long; no test measures them. */
const limits: ConnectionLimits = { maxConnections: 4, maxHeaderBytes: 2048, headersTimeoutMs: 300, requestTimeoutMs: 1_000, idleTimeoutMs: 300 };

/** A raw connection to the listener, collecting what it answers, and whether (and when) the listener closed it. */
function connect(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return { socket, closed, connected, received: () => received };
}

describe("connection limits of the API listener", () => {
  let listener: Listener;
  let port: number;
  beforeAll(async () => {
    listener = await listenHttp1AndH2c((_req, res) => res.end("ok"), { port: 0, host: "127.0.0.1", limits });
    port = listener.address().port;
  });
  afterAll(() => listener.close());

  it("closes a slowloris connection that sends its headers byte by byte", async () => {
    const client = connect(port);
    await client.connected;
    const request = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(1000);
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < request.length && !client.socket.destroyed) client.socket.write(request[sent++]!);
    }, 20);
    await client.closed;
    clearInterval(drip);
    expect(client.received()).not.toContain("200 OK");
    expect(sent).toBeLessThan(request.length);
  });

  it("answers 431 to an oversized header and to too many headers", async () => {
    for (const headers of ["X-Big: " + "a".repeat(4096) + "\r\n", Array.from({ length: 500 }, (_, i) => `X-H${i}: v\r\n`).join("")]) {
      const client = connect(port);
      client.socket.write(`GET / HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
      await client.closed;
      expect(client.received()).toMatch(/^HTTP\/1\.1 431 /);
    }
  });

  it("closes an idle keep-alive connection after the idle timeout", async () => {
    const client = connect(port);
    client.socket.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n");
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*ok$/);
  });

  it("closes a connection that never sends a byte", async () => {
    const client = connect(port);
    await client.closed;
    expect(client.received()).toBe("");
  });

  it("closes an idle HTTP/2 connection", async () => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => session.once("close", () => resolve()));
    const stream = session.request({ ":path": "/" });
    let body = "";
    stream.on("data", (chunk: Buffer) => (body += chunk.toString()));
    await new Promise((resolve) => stream.once("end", resolve));
    expect(body).toBe("ok");
    await closed;
  });

  it("closes connections beyond the maximum at once", async () => {
    const held = Array.from({ length: limits.maxConnections }, () => connect(port));
    await Promise.all(held.map((c) => c.connected));
    // Keep them busy with half a request each, so that none is closed as idle first.
    held.forEach((c) => c.socket.write("GET / HTTP/1.1\r\n"));
    const extra = connect(port);
    await extra.closed;
    expect(extra.received()).toBe("");
    // The held connections were taken: each is answered when its headers time out.
    await Promise.all(held.map((c) => c.closed));
    for (const c of held) expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("defaults that let real clients through: 16 KiB of headers, seconds to send them", () => {
    expect(DEFAULT_CONNECTION_LIMITS.maxHeaderBytes).toBeGreaterThanOrEqual(8 * 1024);
    expect(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs);
  });
});

describe("request body limit of the API", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi("pglite");
  });
  afterAll(() => api.close());

  it("refuses a body over the limit with resource_exhausted, and writes nothing", async () => {
    const keys = await api.workspace();
    const name = "x".repeat(LIMITS.requestBodyBytes + 1);
    const res = await api.fetch("/monitor.v1.MonitorService/CreateHTTPMonitor", {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-key": keys.write.key },
      body: JSON.stringify({ monitor: { name, url: "https://example.com" } }),
    });
    expect(res.status).toBe(429);
    expect(await jsonOf(res)).toMatchObject({ code: "resource_exhausted" });
    expect(await api.db.prisma.monitor.count()).toBe(0);
  });
});
