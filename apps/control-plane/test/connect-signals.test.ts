import http from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "@vigil/proto/grpc";

/**
 * The patched Connect (patches/@connectrpc__connect*.patch) makes a call's
 * AbortSignals only when its handler reads one: on Node 20 each signal is
 * garbage that outlives young-generation collections. A handler that reads
 * its signal must still see the client go away and the deadline pass, also
 * when that happened before it read the signal.
 */
describe("the signals of a unary call", () => {
  const seen: { mode: string; reason: unknown }[] = [];
  const waitForAbort = async (mode: string, signal: AbortSignal) => {
    if (!signal.aborted) await new Promise((aborted) => signal.addEventListener("abort", aborted));
    seen.push({ mode, reason: signal.reason });
  };
  const check = async (_req: unknown, ctx: HandlerContext) => {
    const mode = ctx.requestHeader.get("x-mode") ?? "";
    if (mode === "ignore the signal") return { status: HealthCheckResponse_ServingStatus.SERVING };
    if (mode.startsWith("read it after")) await new Promise((later) => setTimeout(later, 50));
    await waitForAbort(mode, ctx.signal);
    return { status: HealthCheckResponse_ServingStatus.SERVING };
  };
  const server = http.createServer(connectNodeAdapter({ routes: (router) => router.service(Health, { check }) }));
  beforeAll(() => new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening)));
  afterAll(() => new Promise((closed) => server.close(closed)));

  /** Health/Check over Connect JSON; `disconnect` ends the connection once the server has the request. */
  const call = (mode: string, headers: Record<string, string> = {}, disconnect = false) =>
    new Promise<string>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      const req = http.request(
        { port, host: "127.0.0.1", method: "POST", path: "/grpc.health.v1.Health/Check", headers: { "content-type": "application/json", "x-mode": mode, ...headers } },
        (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => (body += chunk));
          res.on("end", () => resolve(body));
        },
      );
      req.on("error", (error) => (disconnect ? resolve("disconnected") : reject(error)));
      req.end("{}");
      if (disconnect) server.once("request", () => setImmediate(() => req.destroy()));
    });
  const reasonFor = async (mode: string) => {
    while (!seen.some((s) => s.mode === mode)) await new Promise((next) => setTimeout(next, 5));
    return seen.find((s) => s.mode === mode)!.reason;
  };

  it("makes no AbortSignal for a call whose handler does not read it", async () => {
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made++;
      }
    };
    try {
      expect(JSON.parse(await call("ignore the signal"))).toEqual({ status: "SERVING" });
    } finally {
      globalThis.AbortController = Original;
    }
    expect(made).toBe(0);
  });

  it("aborts the signal when the client goes away, before or after the handler reads it", async () => {
    for (const mode of ["read it at once, client leaves", "read it after the client left"]) {
      await call(mode, {}, true);
      expect((await reasonFor(mode)) as Error).toMatchObject({ name: "AbortError" });
    }
  });

  it("aborts the signal at the deadline, before or after the handler reads it", async () => {
    for (const mode of ["read it at once, deadline passes", "read it after the deadline"]) {
      await call(mode, { "connect-timeout-ms": "1" });
      const reason = await reasonFor(mode);
      expect(reason).toBeInstanceOf(ConnectError);
      expect((reason as ConnectError).code).toBe(Code.DeadlineExceeded);
    }
  });
});
