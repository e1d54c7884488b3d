import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { failureOf, loadBuiltClient, type ClientPackage } from "./support/built.js";

const run = promisify(execFile);

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

/** A stand-in API on loopback that answers each request with the next of `answers` (the last one repeats). */
async function fakeApi(answers: Answer[]) {
  const requests: { method: string; url: string; key: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method!, url: req.url!, key: req.headers["x-service-key"] as string | undefined });
    req.resume();
    answers[Math.min(requests.length, answers.length) - 1]!(req, res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const json = (status: number, body: unknown): Answer => (_req, res) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};
/** A Connect answer with an empty message, in the binary format the client asks for by default. */
const emptyMessage: Answer = (_req, res) => {
  res.writeHead(200, { "content-type": "application/proto" });
  res.end();
};
/** Connect's error answer for `unavailable` (HTTP 503, as the /v1 endpoints also send it). */
const unavailable = json(503, { code: "unavailable", message: "overloaded, try again" });
const identity = { name: "W", slug: "w", plan: "free", actor: { type: "apiKey", keyId: "k1", scopes: ["write"] } };
/** Holds the request open forever, as a hung server would. */
const never: Answer = () => undefined;

describe("@vigil/client retries, deadlines and aborts", () => {
  let vigil: ClientPackage;
  const servers: { close(): Promise<void> }[] = [];
  const started = async (answers: Answer[]) => {
    const server = await fakeApi(answers);
    servers.push(server);
    return server;
  };
  // Short backoff keeps the test quick; the policy's shape is what is under test.
  const client = (baseUrl: string, options: Parameters<ClientPackage["createClient"]>[0] = {}) =>
    vigil.createClient({ baseUrl, apiKey: "vgl_test", retry: { initialDelayMs: 1, maxDelayMs: 5 }, ...options });

  beforeAll(async () => {
    vigil = await loadBuiltClient();
  });
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it("tries a read again after unavailable, sending the key each time", async () => {
    const server = await started([unavailable, emptyMessage]);
    const answer = await client(server.baseUrl).monitors.listMonitors({});
    expect(answer.httpMonitors).toEqual([]);
    expect(server.requests).toEqual([
      { method: "POST", url: "/monitor.v1.MonitorService/ListMonitors", key: "vgl_test" },
      { method: "POST", url: "/monitor.v1.MonitorService/ListMonitors", key: "vgl_test" },
    ]);
  });

  it("tries GET /v1/whoami again after unavailable", async () => {
    const server = await started([unavailable, json(200, identity)]);
    expect(await client(server.baseUrl).whoami()).toEqual(identity);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /v1/whoami", "GET /v1/whoami"]);
  });

  it("gives up after the documented number of attempts", async () => {
    const server = await started([unavailable]);
    const error = await failureOf(client(server.baseUrl).monitors.getMonitor({ id: "m1" }));
    expect({ code: error.code, message: error.message }).toEqual({ code: "unavailable", message: "overloaded, try again" });
    expect(server.requests).toHaveLength(vigil.DEFAULT_RETRY.maxAttempts);
  });

  it("honours a smaller maxAttempts", async () => {
    const server = await started([unavailable]);
    await failureOf(client(server.baseUrl, { retry: { maxAttempts: 1 } }).monitors.listMonitors({}));
    expect(server.requests).toHaveLength(1);
  });

  // Each server would answer a second attempt with success, so a retry would show as a passing call.
  it("does not try an RPC mutation again", async () => {
    const server = await started([unavailable, emptyMessage]);
    const error = await failureOf(client(server.baseUrl).monitors.createHTTPMonitor({ monitor: { name: "x" } }));
    expect(error.code).toBe("unavailable");
    expect(server.requests.map((r) => r.url)).toEqual(["/monitor.v1.MonitorService/CreateHTTPMonitor"]);
  });

  it("does not try DELETE /v1/api-key/:id again", async () => {
    const server = await started([unavailable, json(200, { id: "k2", revoked: true, revokedAt: new Date().toISOString() })]);
    expect((await failureOf(client(server.baseUrl).revokeApiKey("k2"))).code).toBe("unavailable");
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["DELETE /v1/api-key/k2"]);
  });

  it("does not try other errors again", async () => {
    const server = await started([json(404, { code: "not_found", message: "monitor m1 not found" })]);
    const error = await failureOf(client(server.baseUrl).monitors.getMonitor({ id: "m1" }));
    expect({ code: error.code, message: error.message }).toEqual({ code: "not_found", message: "monitor m1 not found" });
    expect(server.requests).toHaveLength(1);
  });

  it.each(["connect", "grpc-web"] as const)("stops a %s call whose signal is aborted while the server is silent", async (protocol) => {
    const server = await started([never]);
    const controller = new AbortController();
    const call = client(server.baseUrl, { protocol }).monitors.listMonitors({}, { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect((await failureOf(call)).code).toBe("canceled");
  });

  it("stops an HTTP endpoint call whose signal is aborted", async () => {
    const server = await started([never]);
    const controller = new AbortController();
    const call = client(server.baseUrl).whoami({ signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect((await failureOf(call)).code).toBe("canceled");
  });

  it("ends a call at its per-call timeout", async () => {
    const server = await started([never]);
    const error = await failureOf(client(server.baseUrl).monitors.getMonitor({ id: "m1" }, { timeoutMs: 50 }));
    expect(error.code).toBe("deadline_exceeded");
    expect(error.message).toMatch(/50 ms/);
  });

  it("ends calls at the client-wide timeout", async () => {
    const server = await started([never]);
    const c = client(server.baseUrl, { timeoutMs: 50 });
    expect((await failureOf(c.whoami())).code).toBe("deadline_exceeded");
    expect((await failureOf(c.notifications.listNotifications({}))).code).toBe("deadline_exceeded");
  });

  // In plain Node, as users run it: under Jest, Node's own errors fail connect-node's `instanceof Error`
  // (another realm), so it cannot recognise ECONNREFUSED there.
  it("maps a refused connection to unavailable", async () => {
    const server = await started([never]);
    await server.close();
    const script = `
      const { createClient } = await import(${JSON.stringify(pathToFileURL(resolve(__dirname, "../dist/index.js")).href)});
      const client = createClient({ baseUrl: ${JSON.stringify(server.baseUrl)}, apiKey: "vgl_test", retry: { maxAttempts: 1 } });
      const codeOf = (call) => call.then(() => "ok", (error) => error.code);
      console.log(JSON.stringify([await codeOf(client.monitors.listMonitors({})), await codeOf(client.whoami())]));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { env: { PATH: process.env.PATH } });
    expect(JSON.parse(stdout)).toEqual(["unavailable", "unavailable"]);
  });
});
