/**
 * The SSRF guard on the agent's checks: every address an HTTP or TCP check
 * connects to, after DNS and on every redirect hop, is asked of the
 * deployment's AddressPolicy. Targets here can only be on loopback, so
 * "allowed" means opened by ALLOWED_TARGET_CIDRS (127.0.0.1/32) while the
 * guard stays on for every other loopback address (127.0.0.2 stands for an
 * internal address); public addresses are covered by the policy's own tests
 * in packages/domain.
 */
import { createServer, type Server, type Socket } from "node:net";
import { AddressPolicy, parseMonitorConfig, type HttpMonitorConfig, type TcpMonitorConfig } from "@vigil/domain";
import { httpAttempt } from "../src/http";
import { runCheck } from "../src/run";
import { tcpAttempt } from "../src/tcp";
import { dnsAttempt } from "../src/dns";
import type { CheckEnvironment } from "../src/types";
import { startDnsServer, type TestDnsServer } from "./support/dns-server";
import { startHttpTarget, type HttpTarget } from "./support/http-targets";

const LOOPBACK_HINT = "set ALLOW_PRIVATE_TARGETS=true or ALLOWED_TARGET_CIDRS to allow it";
const refusedLoopback = (address: string, form = "") => `refused to connect to ${address}: loopback address${form}; ${LOOPBACK_HINT}`;

/** Only 127.0.0.1 is open: every other loopback address is refused as the default refuses it. */
const only127001 = new AddressPolicy({ allowPrivateTargets: false, allowedTargetCidrs: ["127.0.0.1/32"] });

const http = (url: string, fields: Record<string, unknown> = {}): HttpMonitorConfig =>
  parseMonitorConfig("http", { name: "guarded", periodicity: "30s", url, timeout: 5000, ...fields });
const tcp = (uri: string): TcpMonitorConfig => parseMonitorConfig("tcp", { name: "guarded", periodicity: "30s", uri, timeout: 5000 });

let target: HttpTarget;
let listener: { port: number; accepted: number; close(): Promise<void> };
let dns: TestDnsServer;

beforeAll(async () => {
  target = await startHttpTarget((req, res) => {
    const hop = /^\/redirect\?to=(.+)$/.exec(req.url ?? "");
    if (hop) return res.writeHead(302, { location: decodeURIComponent(hop[1]!) }).end();
    res.end("fine");
  });
  listener = await tcpListener();
  dns = await startDnsServer({
    // Public-looking names, answered with loopback addresses by the test's own server.
    "status.example.com": { A: ["127.0.0.1"] },
    "internal.example.com": { A: ["127.0.0.2"] },
    "mixed.example.com": { A: ["127.0.0.2", "127.0.0.1"] },
    "rebind-http.example.com": { A: ["127.0.0.1"], rebindA: ["127.0.0.2"] },
    "rebind-tcp.example.com": { A: ["127.0.0.1"], rebindA: ["127.0.0.2"] },
  });
});

afterAll(() => Promise.all([target.close(), listener.close(), dns.stop()]));

const env = (addressPolicy: AddressPolicy): CheckEnvironment => ({ addressPolicy, dnsServers: [dns.server] });

describe("by default", () => {
  it("refuses an HTTP check of a loopback address without connecting, naming the address and the rule", async () => {
    const before = target.connections;
    const attempt = await httpAttempt(http(`${target.origin}/`), {});
    expect(attempt).toMatchObject({ ok: false, reason: "blocked", statusCode: null, error: refusedLoopback("127.0.0.1") });
    expect(target.connections).toBe(before);
  });

  it("refuses a TCP check of a loopback address without connecting", async () => {
    const before = listener.accepted;
    const attempt = await tcpAttempt(tcp(`127.0.0.1:${listener.port}`), { addressPolicy: AddressPolicy.STRICT });
    expect(attempt).toMatchObject({ ok: false, reason: "blocked", error: refusedLoopback("127.0.0.1") });
    expect(listener.accepted).toBe(before);
  });

  it("fails the check as blocked, not as down, through runCheck and its retries", async () => {
    const outcome = await runCheck({ kind: "tcp", config: { ...tcp(`127.0.0.1:${listener.port}`), retry: 1 } }, {}, { backoffMs: () => 1 });
    expect(outcome).toMatchObject({ status: "error", reason: "blocked", error: refusedLoopback("127.0.0.1") });
  });

  it.each([
    [`[::ffff:127.0.0.1]`, refusedLoopback("::ffff:127.0.0.1", " (IPv4-mapped form of 127.0.0.1)")],
    [`[::127.0.0.1]`, refusedLoopback("::127.0.0.1", " (IPv4-compatible form of 127.0.0.1)")],
    [`[64:ff9b::127.0.0.1]`, refusedLoopback("64:ff9b::127.0.0.1", " (NAT64 form of 127.0.0.1)")],
    ["[::1]", refusedLoopback("::1")],
    ["0.0.0.0", `refused to connect to 0.0.0.0: unspecified address; set ALLOWED_TARGET_CIDRS to allow it`],
    ["[::]", `refused to connect to ::: unspecified address; set ALLOWED_TARGET_CIDRS to allow it`],
  ])("refuses the literal %s", async (host, error) => {
    const attempt = await tcpAttempt(tcp(`${host}:${listener.port}`), {});
    expect(attempt).toMatchObject({ ok: false, reason: "blocked", error });
  });

  it("refuses a public-looking name that resolves to loopback, on the address resolved", async () => {
    const before = target.connections;
    const attempt = await httpAttempt(http(`http://status.example.com:${target.port}/`), env(AddressPolicy.STRICT));
    expect(attempt).toMatchObject({ ok: false, reason: "blocked", error: refusedLoopback("127.0.0.1") });
    expect(attempt.timing.dnsMs).not.toBeNull();
    expect(target.connections).toBe(before);
  });

  it("leaves DNS checks alone: they ask the agent's own resolvers and connect nowhere else", async () => {
    const config = parseMonitorConfig("dns", { name: "dns", periodicity: "30s", uri: "status.example.com", timeout: 5000 });
    expect(await dnsAttempt(config, env(AddressPolicy.STRICT))).toMatchObject({ ok: true });
  });
});

describe("with only 127.0.0.1 opened", () => {
  it("checks a name that resolves to the opened address", async () => {
    expect(await httpAttempt(http(`http://status.example.com:${target.port}/`), env(only127001))).toMatchObject({ ok: true, statusCode: 200 });
    expect(await tcpAttempt(tcp(`status.example.com:${listener.port}`), env(only127001))).toMatchObject({ ok: true });
  });

  it("refuses a name that resolves to another loopback address", async () => {
    const attempt = await tcpAttempt(tcp(`internal.example.com:${listener.port}`), env(only127001));
    expect(attempt).toMatchObject({ ok: false, reason: "blocked", error: refusedLoopback("127.0.0.2") });
  });

  it("connects only to the permitted addresses of a name", async () => {
    expect(await httpAttempt(http(`http://mixed.example.com:${target.port}/`), env(only127001))).toMatchObject({ ok: true, statusCode: 200 });
  });

  it.each([
    ["an address", (port: number) => `http://127.0.0.2:${port}/`, refusedLoopback("127.0.0.2")],
    ["the IPv4-mapped form of an address", (port: number) => `http://[::ffff:127.0.0.2]:${port}/`, refusedLoopback("::ffff:7f00:2", " (IPv4-mapped form of 127.0.0.2)")],
    ["a name that resolves to an address", (port: number) => `http://internal.example.com:${port}/`, refusedLoopback("127.0.0.2")],
  ])("refuses a redirect to %s it blocks, at the hop", async (_what, location, error) => {
    const requestsBefore = target.requests.length;
    const url = `${target.origin}/redirect?to=${encodeURIComponent(location(target.port))}`;
    const attempt = await httpAttempt(http(url), env(only127001));
    expect(attempt).toMatchObject({ ok: false, reason: "blocked", error });
    // The first hop was made; the second never reached the target.
    expect(target.requests.length).toBe(requestsBefore + 1);
  });

  it("refuses a name rebound to a blocked address on the address actually connected (HTTP)", async () => {
    const url = `http://rebind-http.example.com:${target.port}/`;
    expect(await httpAttempt(http(url), env(only127001))).toMatchObject({ ok: true, statusCode: 200 });
    const rebound = await httpAttempt(http(url), env(only127001));
    expect(rebound).toMatchObject({ ok: false, reason: "blocked", error: refusedLoopback("127.0.0.2") });
    // One lookup per check: the address refused is the one the check would have connected to.
    expect(dns.queriesFor("rebind-http.example.com")).toBe(2);
  });

  it("refuses a name rebound to a blocked address on the address actually connected (TCP)", async () => {
    const uri = `rebind-tcp.example.com:${listener.port}`;
    expect(await tcpAttempt(tcp(uri), env(only127001))).toMatchObject({ ok: true });
    const accepted = listener.accepted;
    expect(await tcpAttempt(tcp(uri), env(only127001))).toMatchObject({ ok: false, reason: "blocked", error: refusedLoopback("127.0.0.2") });
    expect(listener.accepted).toBe(accepted);
    expect(dns.queriesFor("rebind-tcp.example.com")).toBe(2);
  });
});

describe("the settings", () => {
  it("ALLOW_PRIVATE_TARGETS=true opens loopback", async () => {
    const policy = AddressPolicy.fromEnv({ ALLOW_PRIVATE_TARGETS: "true" });
    expect(await httpAttempt(http(`${target.origin}/`), { addressPolicy: policy })).toMatchObject({ ok: true, statusCode: 200 });
    expect(await tcpAttempt(tcp(`127.0.0.2:${listener.port}`), { addressPolicy: policy })).toMatchObject({ ok: false, reason: "connect" });
  });

  it("ALLOWED_TARGET_CIDRS opens its ranges and nothing else", async () => {
    const opened = AddressPolicy.fromEnv({ ALLOWED_TARGET_CIDRS: "10.0.0.0/8, 127.0.0.0/8" });
    expect(await httpAttempt(http(`${target.origin}/`), { addressPolicy: opened })).toMatchObject({ ok: true });
    const other = AddressPolicy.fromEnv({ ALLOWED_TARGET_CIDRS: "10.0.0.0/8" });
    expect(await httpAttempt(http(`${target.origin}/`), { addressPolicy: other })).toMatchObject({ ok: false, reason: "blocked" });
  });
});

/** A TCP listener on 127.0.0.1 that counts the connections it accepts. */
async function tcpListener() {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    counter.accepted += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const counter = {
    port: (server.address() as { port: number }).port,
    accepted: 0,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return counter;
}
