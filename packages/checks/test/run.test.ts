import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { parseMonitorConfig, type DnsMonitorConfig, type HttpMonitorConfig, type TcpMonitorConfig } from "@vigil/domain";
import { mayRetry, retryBackoffMs } from "@vigil/domain";
import { runCheck } from "../src/run";
import { startDnsServer, type TestDnsServer } from "./support/dns-server";
import { closedPort, startHttpTarget, type HttpTarget } from "./support/http-targets";
import { loopback } from "./support/loopback";

/** No real waiting between attempts in tests. */
const fast = { backoffMs: () => 1 };

const dnsJob = (uri: string, fields: Record<string, unknown> = {}) => ({
  kind: "dns" as const,
  config: parseMonitorConfig("dns", { name: "dns", periodicity: "1m", uri, timeout: 5000, ...fields }) as DnsMonitorConfig,
});
const tcpJob = (uri: string, fields: Record<string, unknown> = {}) => ({
  kind: "tcp" as const,
  config: parseMonitorConfig("tcp", { name: "tcp", periodicity: "1m", uri, timeout: 5000, ...fields }) as TcpMonitorConfig,
});
/** An assertion that makes the check look up only A records: one query per attempt. */
const onlyA = { recordAssertions: [{ record: "A", comparator: "neq", target: "192.0.2.99" }] };

async function listening<T extends Server | HttpServer>(server: T): Promise<{ server: T; port: number }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server, port: address.port };
}

const close = (server: Server | HttpServer) => new Promise<void>((resolve) => server.close(() => resolve()));

let dns: TestDnsServer;
let env: { dnsServers: string[] };

beforeAll(async () => {
  dns = await startDnsServer({
    "up.test": { A: ["192.0.2.1"] },
    "flaky.test": { A: ["192.0.2.1"], failFirst: 2 },
    "slowish.test": { A: ["192.0.2.1"], delayMs: 150 },
  });
  env = { dnsServers: [dns.server] };
});

afterAll(async () => {
  await dns.stop();
});

describe("backoff and the period budget", () => {
  it("waits 250 ms, 500 ms, 1 s, then 2 s at most", () => {
    expect([1, 2, 3, 4, 5, 10].map(retryBackoffMs)).toEqual([250, 500, 1000, 2000, 2000, 2000]);
  });

  it("allows a retry only when its wait and whole timeout end within the period", () => {
    expect(mayRetry(1_000, 250, 20_000, 30_000)).toBe(true);
    expect(mayRetry(9_750, 250, 20_000, 30_000)).toBe(true); // ends exactly at the period
    expect(mayRetry(9_751, 250, 20_000, 30_000)).toBe(false);
    expect(mayRetry(16_000, 250, 16_000, 30_000)).toBe(false); // a 16 s timeout fits once in 30 s
    expect(mayRetry(0, 1, 120_000, 60_000)).toBe(false); // timeout 0 (120 s) never retries in 1 m
  });
});

describe("runCheck retries", () => {
  it("makes exactly one attempt with retry=0, even when it fails", async () => {
    const outcome = await runCheck(dnsJob("gone-0.test", { retry: 0, ...onlyA }), env, fast);
    expect(outcome).toMatchObject({ status: "error", attempts: 1, error: expect.stringContaining("ENOTFOUND") });
    expect(dns.queriesFor("gone-0.test")).toBe(1);
  });

  it("makes retry + 1 attempts on a target that keeps failing; the last one decides", async () => {
    const outcome = await runCheck(dnsJob("gone-2.test", { retry: 2, ...onlyA }), env, fast);
    expect(outcome).toMatchObject({ status: "error", attempts: 3, statusCode: null, reason: "dns" });
    expect(outcome.error).toBe("DNS lookup of gone-2.test failed: ENOTFOUND (no such domain)");
    expect(dns.queriesFor("gone-2.test")).toBe(3);
  });

  it("succeeds on a target that fails twice and then answers", async () => {
    const before = new Date();
    const outcome = await runCheck(dnsJob("flaky.test", { retry: 3, ...onlyA }), env, fast);
    // The failed attempts' reason does not outlive them.
    expect(outcome).toMatchObject({ status: "success", attempts: 3, error: null, reason: null, statusCode: null });
    expect(dns.queriesFor("flaky.test")).toBe(3);
    // Latency and timing are the final attempt's; startedAt is when the first one began.
    expect(outcome.timing.dnsMs).toEqual(expect.any(Number));
    expect(outcome.latencyMs).toBe(outcome.timing.dnsMs);
    expect(outcome.startedAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(outcome.startedAt.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("stops after a success", async () => {
    const { server, port } = await listening(createServer((socket) => socket.destroy()));
    let connections = 0;
    server.on("connection", () => (connections += 1));
    try {
      const outcome = await runCheck(tcpJob(`127.0.0.1:${port}`, { retry: 3 }), loopback, fast);
      expect(outcome).toMatchObject({ status: "success", attempts: 1, error: null });
      expect(outcome.timing.connectMs).toEqual(expect.any(Number));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(connections).toBe(1);
    } finally {
      await close(server);
    }
  });

  it("retries refused TCP connections and reports the last error", async () => {
    const { server, port } = await listening(createServer());
    await close(server);
    const outcome = await runCheck(tcpJob(`127.0.0.1:${port}`, { retry: 2 }), loopback, fast);
    expect(outcome).toMatchObject({ status: "error", attempts: 3, error: `connection refused (127.0.0.1:${port})`, reason: "connect" });
  });

  it("asks the backoff schedule for retry 1, 2, ... and waits that long", async () => {
    const asked: number[] = [];
    const started = performance.now();
    await runCheck(dnsJob("gone-3.test", { retry: 3, ...onlyA }), env, { backoffMs: (n) => (asked.push(n), 40) });
    expect(asked).toEqual([1, 2, 3]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(100); // three waits of 40 ms, loosely
  });
});

describe("runCheck period budget", () => {
  it("does not retry when the next attempt could not finish within the period", async () => {
    // timeout 30 s in a 30 s period: any retry would overrun, so one attempt despite retry=5.
    const outcome = await runCheck(dnsJob("gone-budget.test", { retry: 5, timeout: 30_000, periodicity: "30s", ...onlyA }), env, fast);
    expect(outcome).toMatchObject({ status: "error", attempts: 1 });
    expect(dns.queriesFor("gone-budget.test")).toBe(1);
  });

  it("stops retrying once the budget is spent, checking before it waits", async () => {
    // timeout 20 s in a 30 s period: the first retry (1 ms wait) fits; the second (10 s wait) cannot, and is not waited for.
    const started = performance.now();
    const outcome = await runCheck(dnsJob("gone-budget2.test", { retry: 5, timeout: 20_000, periodicity: "30s", ...onlyA }), env, {
      backoffMs: (n) => (n === 1 ? 1 : 10_001),
    });
    expect(outcome).toMatchObject({ status: "error", attempts: 2 });
    expect(dns.queriesFor("gone-budget2.test")).toBe(2);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("runCheck degraded threshold", () => {
  it("is degraded when the successful final attempt is slower than degradedAt", async () => {
    const outcome = await runCheck(dnsJob("slowish.test", { degradedAt: 50 }), env, fast);
    expect(outcome).toMatchObject({ status: "degraded", attempts: 1, error: null, reason: null });
    expect(outcome.latencyMs).toBeGreaterThan(50);
  });

  it("is a success when the same answer is within degradedAt", async () => {
    const outcome = await runCheck(dnsJob("slowish.test", { degradedAt: 5000 }), env, fast);
    expect(outcome).toMatchObject({ status: "success", attempts: 1, error: null });
  });

  it("is an error, not degraded, when the final attempt fails slowly", async () => {
    const outcome = await runCheck(dnsJob("slowish.test", { degradedAt: 50, retry: 0, timeout: 50 }), env, fast);
    expect(outcome).toMatchObject({ status: "error", reason: "timeout" });
  });
});

describe("runCheck aborts", () => {
  it("rejects with the abort reason instead of reporting an error for the target", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("agent stopping")), 50);
    const started = performance.now();
    // Fails fast, then waits 10 s before a retry: the abort cuts the wait short.
    await expect(
      runCheck(dnsJob("gone-abort.test", { retry: 1, ...onlyA }), { ...env, signal: controller.signal }, { backoffMs: () => 10_000 }),
    ).rejects.toThrow("agent stopping");
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("runCheck HTTP", () => {
  it("dispatches to the HTTP check and retries failed responses", async () => {
    let requests = 0;
    const { server, port } = await listening(
      createHttpServer((request, response) => {
        requests += 1;
        response.statusCode = request.url === "/down" ? 503 : 200;
        response.end("ok");
      }),
    );
    try {
      const job = (path: string) => ({
        kind: "http" as const,
        config: parseMonitorConfig("http", { name: "http", periodicity: "1m", url: `http://127.0.0.1:${port}${path}`, timeout: 5000, retry: 1 }),
      });
      expect(await runCheck(job("/up"), loopback, fast)).toMatchObject({ status: "success", statusCode: 200, attempts: 1, reason: null });
      expect(requests).toBe(1);
      expect(await runCheck(job("/down"), loopback, fast)).toMatchObject({ status: "error", statusCode: 503, attempts: 2, reason: "http_status" });
      expect(requests).toBe(3);
    } finally {
      await close(server);
    }
  });
});

describe("trace context of HTTP checks", () => {
  const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
  let target: HttpTarget;
  /** /flaky answers 500 to its first request of each round, then 200; /moved redirects to /ok. */
  let flakyRound = 0;

  beforeAll(async () => {
    target = await startHttpTarget((req, res) => {
      if (req.url === "/moved") return res.writeHead(302, { location: "/ok" }).end();
      if (req.url === "/flaky") return res.writeHead(flakyRound++ === 0 ? 500 : 200).end();
      res.end("ok");
    });
  });
  afterAll(() => target.close());

  const httpJob = (path: string, fields: Record<string, unknown> = {}) => ({
    kind: "http" as const,
    config: parseMonitorConfig("http", { name: "http", periodicity: "1m", url: `${target.origin}${path}`, timeout: 5000, ...fields }) as HttpMonitorConfig,
  });
  const seenBy = async (job: ReturnType<typeof httpJob>) => {
    const before = target.requests.length;
    const outcome = await runCheck(job, loopback, fast);
    return { outcome, seen: target.requests.slice(before) };
  };

  it("sends a sampled W3C traceparent whose ids the outcome reports, a new trace for every check", async () => {
    const first = await seenBy(httpJob("/ok"));
    const second = await seenBy(httpJob("/ok"));
    for (const { outcome, seen } of [first, second]) {
      expect(seen).toHaveLength(1);
      const [, traceId, spanId] = TRACEPARENT.exec(String(seen[0]!.headers.traceparent)) ?? [];
      expect(outcome.trace).toEqual({ traceId, spanId });
    }
    expect(second.outcome.trace!.traceId).not.toBe(first.outcome.trace!.traceId);
    expect(second.outcome.trace!.spanId).not.toBe(first.outcome.trace!.spanId);
  });

  it("sends the check's one traceparent on every attempt and every redirect hop", async () => {
    flakyRound = 0;
    const retried = await seenBy(httpJob("/flaky", { retry: 1 }));
    expect(retried.outcome).toMatchObject({ status: "success", attempts: 2 });
    const redirected = await seenBy(httpJob("/moved"));
    expect(redirected.seen.map((r) => r.url)).toEqual(["/moved", "/ok"]);
    for (const { outcome, seen } of [retried, redirected]) {
      expect(seen).toHaveLength(2);
      const sent = `00-${outcome.trace!.traceId}-${outcome.trace!.spanId}-01`;
      expect(seen.map((r) => r.headers.traceparent)).toEqual([sent, sent]);
    }
  });

  it("sends none when the monitor turns traceHeader off", async () => {
    const { outcome, seen } = await seenBy(httpJob("/ok", { traceHeader: false }));
    expect(seen[0]!.headers.traceparent).toBeUndefined();
    expect(outcome.trace).toBeNull();
  });

  it("sends a traceparent the monitor sets itself as it is, once, and reports no trace of its own", async () => {
    const own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const { outcome, seen } = await seenBy(httpJob("/ok", { headers: [{ key: "TraceParent", value: own }] }));
    expect(seen[0]!.headers.traceparent).toBe(own);
    expect(outcome.trace).toBeNull();
  });

  it("is only for HTTP checks", async () => {
    const refused = await runCheck(tcpJob(`127.0.0.1:${await closedPort()}`, { retry: 0 }), loopback, fast);
    expect(refused.trace).toBeNull();
  });
});
