import { CHECK_RULES, parseMonitorConfig, type HttpMonitorConfig, type MonitorInput } from "@vigil/domain";
import { httpAttempt } from "../src/http";
import { loopback } from "./support/loopback";
import { startHttpTarget, type HttpTarget } from "./support/http-targets";

const HEALTH = {
  status: "ok",
  version: "2.4.1",
  uptime: 1234.5,
  ready: true,
  lastError: null,
  queue: { depth: "12" },
  services: [
    { name: "db", healthy: true, latencyMs: 12 },
    { name: "cache", healthy: true, latencyMs: 3 },
    { name: "search", healthy: false, latencyMs: 250 },
  ],
};

/** These routes answer 200, so only the JSON assertions can fail a check (/down answers 503). */
const BODIES: Record<string, string> = {
  "/health": JSON.stringify(HEALTH),
  "/html": "<html><body>ok</body></html>",
  "/empty": "",
  "/truncated": '{"status": "ok", "services": [',
  // Valid JSON, but longer than the part of a body a check reads.
  "/huge": JSON.stringify({ status: "ok", padding: "x".repeat(CHECK_RULES.maxBodyBytes) }),
};

let target: HttpTarget;
beforeAll(async () => {
  target = await startHttpTarget((_req, res, seen) => {
    const body = BODIES[seen.url];
    if (seen.url === "/down") return res.writeHead(503, { "content-type": "application/json" }).end('{"status":"down"}');
    if (body === undefined) return res.writeHead(404).end();
    res.setHeader("content-type", seen.url === "/html" ? "text/html" : "application/json");
    res.end(body);
  });
});
afterAll(() => target.close());

function monitor(path: string, fields: MonitorInput): HttpMonitorConfig {
  return parseMonitorConfig("http", { name: "json test", periodicity: "1m", url: `${target.origin}${path}`, timeout: 10_000, ...fields });
}

const check = (path: string, jsonBodyAssertions: MonitorInput["jsonBodyAssertions"]) => httpAttempt(monitor(path, { jsonBodyAssertions }), loopback);

describe("JSON body assertions against a target answering JSON", () => {
  it("passes when every assertion holds, for strings, numbers, booleans, null and nested paths", async () => {
    const attempt = await check("/health", [
      { path: "$.status", comparator: "eq", target: "ok" },
      { path: "$.version", comparator: "contains", target: "2.4" },
      { path: "$.uptime", comparator: "gt", target: "1000" },
      { path: "$.uptime", comparator: "eq", target: "1234.50" },
      { path: "$.ready", comparator: "eq", target: "true" },
      { path: "$.lastError", comparator: "empty", target: "" },
      { path: "$.lastError", comparator: "exists" },
      { path: "$.queue.depth", comparator: "lte", target: "100" },
      { path: "$.maintenance", comparator: "not_exists" },
      { path: "$.services[?@.name == 'db'].healthy", comparator: "eq", target: "true" },
    ]);
    expect(attempt).toMatchObject({ ok: true, statusCode: 200, error: null, reason: null });
  });

  it("fails with reason assertion and says what the path selected", async () => {
    const attempt = await check("/health", [
      { path: "$.status", comparator: "eq", target: "down" },
      { path: "$.ready", comparator: "eq", target: "false" },
      { path: "$.version", comparator: "not_exists" },
    ]);
    expect(attempt).toMatchObject({ ok: false, statusCode: 200, reason: "assertion" });
    expect(attempt.error).toBe('$.status "ok" does not satisfy eq "down"; $.ready true does not satisfy eq "false"; $.version "2.4.1" does not satisfy not_exists');
  });

  it("fails a path that selects nothing for every comparator but not_exists", async () => {
    const attempt = await check("/health", [{ path: "$.state", comparator: "neq", target: "down" }]);
    expect(attempt).toMatchObject({ ok: false, reason: "assertion", error: '$.state selects nothing, which does not satisfy neq "down"' });
  });

  it("names a refused status as the reason when JSON assertions fail too, as for body assertions", async () => {
    const attempt = await check("/down", [{ path: "$.status", comparator: "eq", target: "ok" }]);
    expect(attempt).toMatchObject({ ok: false, statusCode: 503, reason: "http_status", error: 'status 503 is not 2xx; $.status "down" does not satisfy eq "ok"' });
  });

  it("does not order a value that is not a number", async () => {
    const attempt = await check("/health", [{ path: "$.status", comparator: "gt", target: "1" }]);
    expect(attempt).toMatchObject({ ok: false, reason: "assertion", error: '$.status "ok" does not satisfy gt "1"' });
  });
});

describe("a path selecting several nodes", () => {
  it("holds when every node satisfies the comparator", async () => {
    const attempt = await check("/health", [
      { path: "$.services[*].name", comparator: "not_empty", target: "" },
      { path: "$.services[*].latencyMs", comparator: "lt", target: "1000" },
      { path: "$.services[*].healthy", comparator: "exists" },
    ]);
    expect(attempt).toMatchObject({ ok: true, error: null });
  });

  it("fails when one node does not, naming how many were selected", async () => {
    const attempt = await check("/health", [{ path: "$.services[*].healthy", comparator: "eq", target: "true" }]);
    expect(attempt).toMatchObject({ ok: false, reason: "assertion" });
    expect(attempt.error).toBe('$.services[*].healthy selects 3 values (true, true, false); every one must satisfy eq "true"');
  });
});

describe("a body that is not JSON", () => {
  it.each([
    ["/html", `Unexpected token '<'`],
    ["/empty", "it is empty"],
    ["/truncated", "JSON"],
    ["/huge", `only its first ${CHECK_RULES.maxBodyBytes} bytes are read`],
  ])("%s fails every JSON assertion with reason assertion, saying why", async (path, why) => {
    const attempt = await check(path, [
      { path: "$.status", comparator: "eq", target: "ok" },
      { path: "$.missing", comparator: "not_exists" },
    ]);
    expect(attempt).toMatchObject({ ok: false, statusCode: 200, reason: "assertion" });
    expect(attempt.error).toMatch(/^body is not JSON \(.+\), so every JSON assertion fails: \$\.status eq "ok", \$\.missing not_exists$/);
    expect(attempt.error).toContain(why);
  });

  it("costs nothing for a monitor without JSON assertions: an HTML body passes as before", async () => {
    expect(await check("/html", [])).toMatchObject({ ok: true, error: null });
  });
});
