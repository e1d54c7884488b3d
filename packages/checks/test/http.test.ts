import { createServer, type AddressInfo } from "node:net";
import tls from "node:tls";
import { gzipSync } from "node:zlib";
import { parseMonitorConfig, type HttpMonitorConfig, type MonitorInput } from "@vigil/domain";
import { CHECK_RULES } from "@vigil/domain";
import { httpAttempt } from "../src/http";

const { maxBodyBytes: MAX_BODY_BYTES, maxRedirects: MAX_REDIRECTS } = CHECK_RULES;
import type { CheckEnvironment } from "../src/types";
import { afterBusyFor } from "./support/busy";
import { loopback } from "./support/loopback";
import { trustedTestPki } from "./support/trusted-pki";
import { startDnsServer, type TestDnsServer } from "./support/dns-server";
import {
  closedPort,
  selfSignedCertificate,
  startHttpTarget,
  startHttpsTarget,
  type HttpTarget,
  type TargetHandler,
} from "./support/http-targets";

/** A monitor as the API would store it: every default filled in by the domain's own parser. */
function monitor(url: string, fields: MonitorInput = {}): HttpMonitorConfig {
  return parseMonitorConfig("http", { name: "http test", periodicity: "1m", url, timeout: 10_000, ...fields });
}

const MIB = 1024 * 1024;
const BIG_BODY = Buffer.concat([
  Buffer.alloc(MIB / 2, "a"),
  Buffer.from("EARLY-MARKER"),
  Buffer.alloc(MIB, "b"),
  Buffer.from("LATE-MARKER"),
  Buffer.alloc(3 * MIB + MIB / 2, "c"),
]);

/** The main target's routes, by path (the query is ignored). */
const routes: Record<string, TargetHandler> = {
  "/ok": (_req, res) => res.end("fine"),
  "/headers": (_req, res) => {
    res.setHeader("content-type", "text/plain");
    res.setHeader("set-cookie", ["a=1", "b=2"]);
    res.end("hello world");
  },
  "/empty": (_req, res) => res.end(),
  "/slow": (_req, res) => setTimeout(() => res.end("slow"), 100),
  "/stall-body": (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.write("the beginning, and then nothing");
  },
  "/never": () => undefined,
  "/destroy": (req) => req.socket.destroy(),
  "/reset": (req) => req.socket.resetAndDestroy(),
  "/big": (_req, res) => res.end(BIG_BODY),
  "/gzip": (req, res) => {
    const gzip = req.headers["accept-encoding"]?.includes("gzip");
    if (gzip) res.setHeader("content-encoding", "gzip");
    res.end(gzip ? gzipSync("compressed hello") : "plain hello");
  },
  "/final": (_req, res) => res.end("final"),
  "/redirect/relative": (_req, res) => redirect(res, 302, "../final?from=relative"),
  "/redirect/see-other": (_req, res) => redirect(res, 303, "/final"),
  "/redirect/moved": (_req, res) => redirect(res, 301, "/final"),
  "/redirect/temporary": (_req, res) => redirect(res, 307, "/final"),
  "/redirect/loop": (_req, res) => redirect(res, 302, "/redirect/loop"),
  "/redirect/no-location": (_req, res) => res.writeHead(302).end(),
  "/redirect/slow": (_req, res) => setTimeout(() => redirect(res, 302, "/final"), 150),
};

function redirect(res: Parameters<TargetHandler>[1], status: number, location: string): void {
  res.writeHead(status, { location }).end(`see ${location}`);
}

let target: HttpTarget;
/** A second origin, for absolute redirects across origins. */
let other: HttpTarget;

beforeAll(async () => {
  other = await startHttpTarget((_req, res) => res.end("landed"));
  target = await startHttpTarget((req, res, seen) => {
    const path = seen.url.split("?")[0] ?? "";
    const status = /^\/status\/(\d{3})$/.exec(path);
    if (status) return res.writeHead(Number(status[1])).end(status[1] === "204" ? undefined : `status ${status[1]}`);
    // /chain/N redirects N more times before answering.
    const chain = /^\/chain\/(\d+)$/.exec(path);
    if (chain) {
      const left = Number(chain[1]);
      return left === 0 ? res.end("end of chain") : redirect(res, 302, `/chain/${left - 1}`);
    }
    if (path === "/redirect/absolute") return redirect(res, 301, `${other.origin}/landing`);
    const route = routes[path];
    if (route) return route(req, res, seen);
    res.writeHead(404).end("no such route");
  });
});

afterAll(async () => {
  await Promise.all([target.close(), other.close()]);
});

/** Requests the target saw from one attempt (it records every request in order). */
async function attemptSeen(config: HttpMonitorConfig, env: CheckEnvironment = loopback) {
  const before = target.requests.length;
  const attempt = await httpAttempt(config, env);
  return { attempt, seen: target.requests.slice(before) };
}

describe("status codes", () => {
  it("passes a 200", async () => {
    const attempt = await httpAttempt(monitor(`${target.origin}/ok`), loopback);
    expect(attempt).toMatchObject({ ok: true, statusCode: 200, error: null, reason: null });
    expect(attempt.latencyMs).toBeGreaterThan(0);
  });

  it("fails a 500 when there are no status assertions", async () => {
    const attempt = await httpAttempt(monitor(`${target.origin}/status/500`), loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: 500, error: "status 500 is not 2xx", reason: "http_status" });
  });

  it.each([204, 299])("passes a %i: any 2xx is success", async (code) => {
    const attempt = await httpAttempt(monitor(`${target.origin}/status/${code}`), loopback);
    expect(attempt).toMatchObject({ ok: true, statusCode: code, error: null });
  });

  it("judges a 3xx itself when redirects are not followed: it fails unless a status assertion accepts it", async () => {
    const url = `${target.origin}/redirect/moved`;
    const plain = await httpAttempt(monitor(url, { followRedirects: false }), loopback);
    expect(plain).toMatchObject({ ok: false, statusCode: 301, error: "status 301 is not 2xx", reason: "http_status" });

    const accepted = await httpAttempt(
      monitor(url, { followRedirects: false, statusCodeAssertions: [{ target: 301, comparator: "eq" }] }),
      loopback,
    );
    expect(accepted).toMatchObject({ ok: true, statusCode: 301, error: null, reason: null });
  });

  it("names a refused status as the reason when the body assertions fail too", async () => {
    const config = monitor(`${target.origin}/status/503`, { bodyAssertions: [{ target: "fine", comparator: "contains" }] });
    const attempt = await httpAttempt(config, loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: 503, reason: "http_status" });
    expect(attempt.error).toBe('status 503 is not 2xx; body does not satisfy contains "fine"');
  });
});

describe("requests", () => {
  it.each(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"])("sends %s", async (method) => {
    const { attempt, seen } = await attemptSeen(monitor(`${target.origin}/headers`, { method }));
    expect(attempt).toMatchObject({ ok: true, statusCode: 200 });
    expect(seen.map((r) => r.method)).toEqual([method]);
  });

  it("reads no body for HEAD", async () => {
    const config = monitor(`${target.origin}/headers`, { method: "HEAD", bodyAssertions: [{ target: "", comparator: "empty" }] });
    expect(await httpAttempt(config, loopback)).toMatchObject({ ok: true, error: null });
  });

  it("sends the body and the headers of a POST", async () => {
    const config = monitor(`${target.origin}/ok?x=1`, {
      method: "POST",
      body: '{"hello":"world"}',
      headers: [
        { key: "Content-Type", value: "application/json" },
        { key: "X-Vigil-Test", value: "yes" },
      ],
    });
    const { attempt, seen } = await attemptSeen(config);
    expect(attempt.ok).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "POST", url: "/ok?x=1", body: '{"hello":"world"}' });
    expect(seen[0]?.headers).toMatchObject({ "content-type": "application/json", "x-vigil-test": "yes", "content-length": "17" });
    expect(seen[0]?.headers["user-agent"]).toMatch(/Vigil/);
  });

  it("sends no body when the monitor's body is empty, and the monitor's own user agent when it has one", async () => {
    const config = monitor(`${target.origin}/ok`, { headers: [{ key: "User-Agent", value: "custom-agent" }] });
    const { seen } = await attemptSeen(config);
    expect(seen[0]?.body).toBe("");
    expect(seen[0]?.headers["content-length"]).toBeUndefined();
    expect(seen[0]?.headers["transfer-encoding"]).toBeUndefined();
    expect(seen[0]?.headers["user-agent"]).toBe("custom-agent");
  });

  it("sends credentials written in the URL as basic authentication", async () => {
    const { seen } = await attemptSeen(monitor(`http://user:p%40ss@127.0.0.1:${target.port}/ok`));
    expect(seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from("user:p@ss").toString("base64")}`);
  });

  it("reports a header the HTTP client refuses to send as a failed attempt, without throwing", async () => {
    const config = monitor(`${target.origin}/ok`, { headers: [{ key: "Transfer-Encoding", value: "chunked" }] });
    const attempt = await httpAttempt(config, loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: null, reason: "protocol" });
    expect(attempt.error).toMatch(/^invalid request: .*transfer-encoding/);
  });

  it("reports a header name or value the client refuses to send as a failed attempt, without throwing", async () => {
    // The API refuses both; a job from an older or another writer could still carry them.
    const refused = [[{ key: "Bad Name", value: "x" }], [{ key: "X-Split", value: "a\r\nInjected: yes" }], [{ key: "Host", value: "a" }, { key: "host", value: "b" }]];
    for (const headers of refused) {
      const attempt = await httpAttempt({ ...monitor(`${target.origin}/ok`), headers }, loopback);
      expect(attempt).toMatchObject({ ok: false, statusCode: null, reason: "protocol" });
      expect(attempt.error).toMatch(/^invalid request: /);
    }
  });

  it("sends Host with the port, or the monitor's own Host", async () => {
    const { seen } = await attemptSeen(monitor(`${target.origin}/ok`));
    expect(seen[0]?.headers.host).toBe(`127.0.0.1:${target.port}`);
    const own = await attemptSeen(monitor(`${target.origin}/ok`, { headers: [{ key: "Host", value: "status.example.com" }] }));
    expect(own.seen[0]?.headers.host).toBe("status.example.com");
  });

  it("frames the body itself: Content-Length of the body (0 for an empty POST), Connection: close", async () => {
    const post = await attemptSeen(monitor(`${target.origin}/ok`, { method: "POST", body: "héllo", headers: [{ key: "Content-Length", value: "999" }] }));
    expect(post.seen[0]).toMatchObject({ method: "POST", body: "héllo" });
    expect(post.seen[0]?.headers).toMatchObject({ "content-length": "6", connection: "close" });
    const empty = await attemptSeen(monitor(`${target.origin}/ok`, { method: "POST" }));
    expect(empty.seen[0]?.headers["content-length"]).toBe("0");
    expect(empty.seen[0]?.headers["transfer-encoding"]).toBeUndefined();
  });

  it("asserts on every value of a repeated response header, joined with commas", async () => {
    const answer = "HTTP/1.1 200 OK\r\nServer: first\r\nServer: second\r\nContent-Length: 2\r\n\r\nok";
    const config = (url: string) => monitor(url, { headerAssertions: [{ key: "server", target: "first, second", comparator: "eq" }] });
    expect(await withRawTarget(answer, (url) => httpAttempt(config(url), loopback))).toMatchObject({ ok: true, error: null });
  });
});

describe("assertions", () => {
  const url = () => `${target.origin}/headers`;

  it("applies status code comparators", async () => {
    const passing = monitor(url(), {
      statusCodeAssertions: [
        { target: 200, comparator: "gte" },
        { target: 300, comparator: "lt" },
      ],
    });
    expect(await httpAttempt(passing, loopback)).toMatchObject({ ok: true, error: null });

    const failing = monitor(url(), { statusCodeAssertions: [{ target: 200, comparator: "neq" }] });
    expect(await httpAttempt(failing, loopback)).toMatchObject({ ok: false, statusCode: 200, error: "status 200 is not neq 200", reason: "http_status" });
  });

  it("applies body comparators and joins the failures", async () => {
    const passing = monitor(url(), {
      bodyAssertions: [
        { target: "hello world", comparator: "eq" },
        { target: "hello", comparator: "contains" },
        { target: "bye", comparator: "not_contains" },
        { target: "", comparator: "not_empty" },
      ],
    });
    expect(await httpAttempt(passing, loopback)).toMatchObject({ ok: true, error: null });

    const failing = monitor(url(), {
      bodyAssertions: [
        { target: "", comparator: "empty" },
        { target: "hello world", comparator: "neq" },
      ],
    });
    expect(await httpAttempt(failing, loopback)).toMatchObject({
      statusCode: 200,
      error: 'body does not satisfy empty ""; body does not satisfy neq "hello world"',
      reason: "assertion",
    });

    const empty = monitor(`${target.origin}/empty`, { bodyAssertions: [{ target: "", comparator: "empty" }] });
    expect(await httpAttempt(empty, loopback)).toMatchObject({ ok: true });
  });

  it("applies header comparators to lower-cased names, numbers compared as numbers, repeated headers joined", async () => {
    const passing = monitor(url(), {
      headerAssertions: [
        { key: "Content-Length", target: "9", comparator: "gt" }, // "11" > "9" only as numbers
        { key: "Content-Type", target: "text/plain", comparator: "eq" },
        { key: "set-cookie", target: "a=1, b=2", comparator: "eq" },
        { key: "x-absent", target: "", comparator: "empty" },
      ],
    });
    expect(await httpAttempt(passing, loopback)).toMatchObject({ ok: true, error: null });

    const failing = monitor(url(), { headerAssertions: [{ key: "content-length", target: "100", comparator: "gt" }] });
    expect(await httpAttempt(failing, loopback)).toMatchObject({ error: 'header content-length "11" does not satisfy gt "100"', reason: "assertion" });
  });
});

describe("redirects", () => {
  it("follows a relative Location", async () => {
    const { attempt, seen } = await attemptSeen(monitor(`${target.origin}/redirect/relative`));
    expect(attempt).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(seen.map((r) => r.url)).toEqual(["/redirect/relative", "/final?from=relative"]);
  });

  it("follows an absolute Location to another origin, without the credentials", async () => {
    const before = other.requests.length;
    const config = monitor(`${target.origin}/redirect/absolute`, {
      headers: [
        { key: "Authorization", value: "Bearer secret" },
        { key: "X-Vigil-Test", value: "kept" },
      ],
      bodyAssertions: [{ target: "landed", comparator: "eq" }],
    });
    const attempt = await httpAttempt(config, loopback);
    expect(attempt).toMatchObject({ ok: true, statusCode: 200 });
    const landed = other.requests.slice(before);
    expect(landed.map((r) => r.url)).toEqual(["/landing"]);
    expect(landed[0]?.headers.authorization).toBeUndefined();
    expect(landed[0]?.headers["x-vigil-test"]).toBe("kept");
  });

  it("turns a POST into a GET without body on 303 and on 301, and keeps it on 307", async () => {
    const post = (path: string) =>
      monitor(`${target.origin}${path}`, { method: "POST", body: "payload", headers: [{ key: "Content-Type", value: "text/plain" }] });

    for (const path of ["/redirect/see-other", "/redirect/moved"]) {
      const { attempt, seen } = await attemptSeen(post(path));
      expect(attempt.ok).toBe(true);
      expect(seen.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([`POST ${path} payload`, "GET /final "]);
      expect(seen[1]?.headers["content-type"]).toBeUndefined();
    }

    const { seen } = await attemptSeen(post("/redirect/temporary"));
    expect(seen.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual(["POST /redirect/temporary payload", "POST /final payload"]);
  });

  it("fails a redirect loop", async () => {
    const attempt = await httpAttempt(monitor(`${target.origin}/redirect/loop`), loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: 302, reason: "protocol" });
    expect(attempt.error).toMatch(/^redirect loop: GET http:\/\/127\.0\.0\.1:\d+\/redirect\/loop was already requested$/);
  });

  it(`follows ${MAX_REDIRECTS} redirects and fails on one more`, async () => {
    const ten = await attemptSeen(monitor(`${target.origin}/chain/${MAX_REDIRECTS}`));
    expect(ten.attempt).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(ten.seen).toHaveLength(MAX_REDIRECTS + 1);

    const eleven = await httpAttempt(monitor(`${target.origin}/chain/${MAX_REDIRECTS + 1}`), loopback);
    expect(eleven).toMatchObject({ ok: false, error: "more than 10 redirects", reason: "protocol" });
  });

  it("judges a redirect without Location as the answer", async () => {
    const attempt = await httpAttempt(monitor(`${target.origin}/redirect/no-location`), loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: 302, error: "status 302 is not 2xx" });
  });

  it("reports the final hop's phases and the whole chain's latency", async () => {
    const attempt = await httpAttempt(monitor(`${target.origin}/redirect/slow`), loopback);
    expect(attempt.ok).toBe(true);
    expect(attempt.timing.firstByteMs).not.toBeNull();
    // The first hop waited 150 ms for its answer: the latency has it, the final hop's phases do not.
    expect(attempt.latencyMs - attempt.timing.firstByteMs!).toBeGreaterThanOrEqual(140);
  });
});

describe("timeouts and aborts", () => {
  it("times out a body that stalls after the headers", async () => {
    const started = Date.now();
    const attempt = await httpAttempt(monitor(`${target.origin}/stall-body`, { timeout: 300 }), loopback);
    const took = Date.now() - started;
    expect(attempt).toMatchObject({ ok: false, statusCode: 200, error: "timed out after 300 ms while reading the response body", reason: "timeout" });
    expect(attempt.timing.transferMs).toBeGreaterThan(0);
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(5_000);
  });

  it("times out a target that never answers", async () => {
    const started = Date.now();
    const attempt = await httpAttempt(monitor(`${target.origin}/never`, { timeout: 300 }), loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: null, error: "timed out after 300 ms while waiting for the response", reason: "timeout" });
    expect(attempt.latencyMs).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("stops when the agent aborts, even with no timeout of its own (timeout 0)", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const attempt = await httpAttempt(monitor(`${target.origin}/never`, { timeout: 0 }), { ...loopback, signal: controller.signal });
    // runCheck rejects rather than report it; the attempt alone reads like a timeout.
    expect(attempt).toMatchObject({ ok: false, error: "check aborted", reason: "timeout" });
    expect(Date.now() - started).toBeLessThan(5_000);

    const already = await httpAttempt(monitor(`${target.origin}/ok`), { ...loopback, signal: AbortSignal.abort() });
    expect(already).toMatchObject({ ok: false, error: "check aborted", statusCode: null });
  });
});

describe("network failures", () => {
  it("reports a connection closed before the response", async () => {
    const attempt = await httpAttempt(monitor(`${target.origin}/destroy`), loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: null, reason: "connect" });
    expect(attempt.error).toMatch(/^connection (closed by the target|reset) while waiting for the response$/);
  });

  it("reports a connection reset", async () => {
    const attempt = await httpAttempt(monitor(`${target.origin}/reset`), loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: null, error: "connection reset while waiting for the response", reason: "connect" });
  });

  it("reports a refused connection with the address", async () => {
    const port = await closedPort();
    const attempt = await httpAttempt(monitor(`http://127.0.0.1:${port}/`), loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: null, error: `connection refused (127.0.0.1:${port})`, reason: "connect" });
    expect(attempt.timing).toMatchObject({ dnsMs: null, tlsMs: null, firstByteMs: null, transferMs: null });
  });

  it("reports an answer that is not HTTP as a protocol failure", async () => {
    const attempt = await withRawTarget("SSH-2.0-OpenSSH_9.6\r\n", (url) => httpAttempt(monitor(url), loopback));
    expect(attempt).toMatchObject({ ok: false, statusCode: null, reason: "protocol" });
    expect(attempt.error).toMatch(/^invalid HTTP response: /);
  });

  it("reports a body shorter than its Content-Length, and a chunked body cut short", async () => {
    const short = await withRawTarget("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b", (url) => httpAttempt(monitor(url), loopback));
    expect(short).toMatchObject({ ok: false, statusCode: 200, error: "response body length does not match its Content-Length", reason: "protocol" });
    const chunked = await withRawTarget("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", (url) => httpAttempt(monitor(url), loopback));
    expect(chunked).toMatchObject({ ok: false, statusCode: 200, error: "connection closed by the target while reading the response body", reason: "connect" });
  });

  it("reports response headers over 16 KiB", async () => {
    const answer = `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(20 * 1024)}\r\nContent-Length: 0\r\n\r\n`;
    const attempt = await withRawTarget(answer, (url) => httpAttempt(monitor(url), loopback));
    expect(attempt).toMatchObject({ ok: false, statusCode: null, error: "response headers too large", reason: "protocol" });
  });
});

/**
 * A target that answers any request with `answer`, byte for byte, then closes
 * its side; runs `use` with its URL and stops it after.
 */
async function withRawTarget<T>(answer: string, use: (url: string) => Promise<T>): Promise<T> {
  const server = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.end(answer);
    socket.resume(); // Reads the request, and so the client's close, which lets the server close.
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("DNS", () => {
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer({ "target.vigil.test": { A: ["127.0.0.1"] }, "slow.vigil.test": { A: ["127.0.0.1"], delayMs: 3_000 } });
  });
  afterAll(() => dns.stop());

  it("resolves through the agent's DNS servers when it has some", async () => {
    const attempt = await httpAttempt(monitor(`http://target.vigil.test:${target.port}/ok`), { ...loopback, dnsServers: [dns.server] });
    expect(attempt).toMatchObject({ ok: true, statusCode: 200 });
    expect(attempt.timing.dnsMs).toBeGreaterThan(0);
    expect(dns.queriesFor("target.vigil.test")).toBeGreaterThan(0);
  });

  it("reports a name that does not exist", async () => {
    const attempt = await httpAttempt(monitor(`http://missing.vigil.test:${target.port}/`), { ...loopback, dnsServers: [dns.server] });
    expect(attempt).toMatchObject({ ok: false, statusCode: null, error: "DNS lookup of missing.vigil.test failed: ENOTFOUND", reason: "dns" });
    expect(attempt.timing).toMatchObject({ connectMs: null, tlsMs: null, firstByteMs: null });
  });

  it("counts the lookup in the timeout", async () => {
    const attempt = await httpAttempt(monitor(`http://slow.vigil.test:${target.port}/`, { timeout: 300 }), { ...loopback, dnsServers: [dns.server] });
    expect(attempt).toMatchObject({ ok: false, error: "timed out after 300 ms while resolving the host name", reason: "timeout" });
    expect(attempt.latencyMs).toBeLessThan(2_000);
  });
});

describe("the 1 MiB body cap", () => {
  it("reads the first MiB of a 5 MiB body and ignores the rest", async () => {
    expect(BIG_BODY.length).toBeGreaterThan(5 * MIB - 1);
    const url = `${target.origin}/big`;
    expect(await httpAttempt(monitor(url), loopback)).toMatchObject({ ok: true, error: null });

    const early = monitor(url, { bodyAssertions: [{ target: "EARLY-MARKER", comparator: "contains" }] });
    expect(await httpAttempt(early, loopback)).toMatchObject({ ok: true, error: null });

    expect(BIG_BODY.indexOf("LATE-MARKER")).toBeGreaterThan(MAX_BODY_BYTES);
    const late = monitor(url, { bodyAssertions: [{ target: "LATE-MARKER", comparator: "contains" }] });
    expect(await httpAttempt(late, loopback)).toMatchObject({
      ok: false,
      statusCode: 200,
      error: 'body does not satisfy contains "LATE-MARKER"',
      reason: "assertion",
    });
  });

  it("decodes a body the monitor asked to be compressed", async () => {
    const config = monitor(`${target.origin}/gzip`, {
      headers: [{ key: "Accept-Encoding", value: "gzip" }],
      bodyAssertions: [{ target: "compressed hello", comparator: "eq" }],
    });
    expect(await httpAttempt(config, loopback)).toMatchObject({ ok: true, error: null });
  });
});

describe("timing", () => {
  it("measures the phases of a plain HTTP request to an IP address", async () => {
    const { attempt } = await attemptSeen(monitor(`${target.origin}/slow`));
    const { timing } = attempt;
    expect(attempt.ok).toBe(true);
    expect(timing.dnsMs).toBeNull(); // no lookup for an IP literal
    expect(timing.tlsMs).toBeNull(); // http://
    expect(timing.connectMs).toBeGreaterThan(0);
    expect(timing.firstByteMs).toBeGreaterThanOrEqual(90); // the target waits 100 ms (timers may fire a little early)
    expect(timing.transferMs).toBeGreaterThanOrEqual(0);
    // The phases run back to back from the first one: the attempt's time is theirs, none of our own set-up.
    expect(attempt.latencyMs).toBeCloseTo(timing.connectMs! + timing.firstByteMs! + timing.transferMs!, 6);
  });

  it("measures the lookup of a host name", async () => {
    const attempt = await httpAttempt(monitor(`http://localhost:${target.port}/ok`), loopback);
    expect(attempt.ok).toBe(true);
    expect(attempt.timing.dnsMs).not.toBeNull();
    expect(attempt.timing.dnsMs).toBeGreaterThanOrEqual(0);
  });

  it("times answers that arrive together each on its own read, not after the work of the checks read before it", async () => {
    // The target holds the first request until the second comes, then answers both in one go: their bytes are
    // ready for the client in the same turn of its event loop.
    const held: Array<() => void> = [];
    const together = await startHttpTarget((_req, res) => {
      held.push(() => res.end("together"));
      if (held.length === 2) for (const answer of held) answer();
    });
    // Each check's own work, once its answer is read, takes busyMs here: neither may count the other's.
    const busyMs = 300;
    try {
      const attempts = await Promise.all([1, 2].map(() => httpAttempt(monitor(`${together.origin}/`), loopback).then(afterBusyFor(busyMs))));
      for (const attempt of attempts) {
        expect(attempt.ok).toBe(true);
        expect(attempt.latencyMs).toBeLessThan(busyMs);
      }
    } finally {
      await together.close();
    }
  });

  it("opens a new connection for every attempt", async () => {
    const connections = target.connections;
    const first = await attemptSeen(monitor(`${target.origin}/ok`));
    const second = await attemptSeen(monitor(`${target.origin}/ok`));
    expect(target.connections).toBe(connections + 2);
    expect(first.seen[0]?.connection).not.toBe(second.seen[0]?.connection);
    expect(second.attempt.timing.connectMs).toBeGreaterThan(0);
  });
});

describe("TLS", () => {
  // openssl is part of the machine the tests need: without it this fails rather than skips.
  const certificate = selfSignedCertificate();
  let secure: HttpTarget;
  beforeAll(async () => {
    secure = await startHttpsTarget(certificate, (_req, res) => res.end("secure"));
  });
  afterAll(() => secure.close());
  afterEach(() => jest.restoreAllMocks());

  it("verifies certificates: a self-signed one fails, with the phases up to the handshake", async () => {
    const attempt = await httpAttempt(monitor(`${secure.origin}/`), loopback);
    expect(attempt).toMatchObject({ ok: false, statusCode: null, reason: "tls" });
    expect(attempt.error).toMatch(/^TLS handshake with 127\.0\.0\.1 failed: .*certificate/);
    expect(attempt.timing.connectMs).toBeGreaterThan(0);
    expect(attempt.timing.tlsMs).toBeGreaterThan(0);
    expect(attempt.timing.firstByteMs).toBeNull();
  });

  it("measures the handshake of a certificate it trusts", async () => {
    // The check trusts the system's CAs only; here it is made to trust the test's certificate as well.
    const connect = tls.connect;
    jest.spyOn(tls, "connect").mockImplementation(((options: tls.ConnectionOptions) =>
      connect({ ...options, ca: certificate.cert })) as typeof tls.connect);
    const attempt = await httpAttempt(monitor(`https://localhost:${secure.port}/`, { bodyAssertions: [{ target: "secure", comparator: "eq" }] }), loopback);
    expect(attempt).toMatchObject({ ok: true, statusCode: 200, error: null, reason: null });
    expect(attempt.timing.dnsMs).not.toBeNull();
    expect(attempt.timing.connectMs).toBeGreaterThan(0);
    expect(attempt.timing.tlsMs).toBeGreaterThan(0);
    expect(attempt.timing.firstByteMs).toBeGreaterThan(0);
  });
});

describe("certificates", () => {
  const trusted = trustedTestPki();
  const targets: HttpTarget[] = [];
  afterAll(async () => {
    await Promise.all(targets.map((target) => target.close()));
  });
  const serving = async (served: { cert: string; key: string }) => {
    const target = await startHttpsTarget(served, (_req, res) => res.end("ok"));
    targets.push(target);
    return target;
  };

  it("records the leaf's expiry, issuer and names of a verified certificate", async () => {
    const served = await trusted.pki.leaf(10);
    const target = await serving(served);
    const attempt = await httpAttempt(monitor(`https://localhost:${target.port}/`), loopback);
    expect(attempt).toMatchObject({ ok: true, reason: null });
    expect(attempt.certificate).toEqual({
      notAfter: served.notAfter.toISOString(),
      issuer: "CN=Vigil Test Intermediate, O=Vigil Tests",
      subjectAltNames: ["DNS:localhost", "IP Address:127.0.0.1"],
      chainNotAfter: served.notAfter.toISOString(),
    });
  });

  it("counts the chain's earliest expiry when an intermediate expires before the leaf", async () => {
    const served = await trusted.pki.leaf(60, { intermediateDays: 5 });
    const target = await serving(served);
    const attempt = await httpAttempt(monitor(`https://localhost:${target.port}/`), loopback);
    expect(attempt.ok).toBe(true);
    expect(attempt.certificate).toMatchObject({ notAfter: served.notAfter.toISOString(), chainNotAfter: served.chainNotAfter.toISOString() });
    expect(served.chainNotAfter.getTime()).toBeLessThan(served.notAfter.getTime());
  });

  it("keeps failing an expired certificate with reason tls and no certificate", async () => {
    const expired = await serving(await trusted.pki.leaf(-1));
    const attempt = await httpAttempt(monitor(`https://localhost:${expired.port}/`), loopback);
    expect(attempt).toMatchObject({ ok: false, reason: "tls", certificate: null });
    expect(attempt.error).toMatch(/certificate has expired/);
  });

  it("records no certificate for plain HTTP", async () => {
    const target = await startHttpTarget((_req, res) => res.end("ok"));
    targets.push(target);
    expect((await httpAttempt(monitor(`${target.origin}/`), loopback)).certificate).toBeNull();
  });
});
