import { AddressPolicy, parseMonitorConfig, type GrpcMonitorConfig } from "@vigil/domain";
import { grpcAttempt } from "../src/grpc";
import { runCheck } from "../src/run";
import { startGrpcHealthServer, type GrpcHealthServer } from "./support/grpc-health-server";
import { loopback } from "./support/loopback";
import { trustedTestPki } from "./support/trusted-pki";

const grpcConfig = (uri: string, fields: Record<string, unknown> = {}): GrpcMonitorConfig =>
  parseMonitorConfig("grpc", { name: "grpc", periodicity: "30s", uri, timeout: 5000, retry: 0, ...fields });

describe("gRPC health check, plaintext", () => {
  let server: GrpcHealthServer;
  beforeAll(async () => {
    server = await startGrpcHealthServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.set("", "SERVING");
    server.delayMs = 0;
  });

  it("passes on SERVING, with the connect and response phases and no TLS", async () => {
    const attempt = await grpcAttempt(grpcConfig(server.uri), loopback);
    expect(attempt).toMatchObject({ ok: true, error: null, reason: null, statusCode: null, certificate: null });
    expect(attempt.timing.dnsMs).toBeNull();
    expect(attempt.timing.connectMs).toBeGreaterThan(0);
    expect(attempt.timing.tlsMs).toBeNull();
    expect(attempt.timing.firstByteMs).toBeGreaterThan(0);
    expect(attempt.latencyMs).toBeGreaterThanOrEqual(attempt.timing.connectMs! + attempt.timing.firstByteMs!);
  });

  it("fails on NOT_SERVING with reason assertion, and passes again when the status flips back", async () => {
    server.set("", "NOT_SERVING");
    expect(await grpcAttempt(grpcConfig(server.uri), loopback)).toMatchObject({
      ok: false,
      reason: "assertion",
      error: "health status NOT_SERVING, expected SERVING",
    });
    server.set("", "SERVING");
    expect((await grpcAttempt(grpcConfig(server.uri), loopback)).ok).toBe(true);
  });

  it("passes on NOT_SERVING when that is the expected status, and then fails on SERVING", async () => {
    server.set("", "NOT_SERVING");
    const config = grpcConfig(server.uri, { expectedStatus: "NOT_SERVING" });
    expect(await grpcAttempt(config, loopback)).toMatchObject({ ok: true, reason: null });
    server.set("", "SERVING");
    expect(await grpcAttempt(config, loopback)).toMatchObject({ ok: false, reason: "assertion", error: "health status SERVING, expected NOT_SERVING" });
  });

  it("asks about the monitor's service and sends its metadata", async () => {
    server.set("orders.v1.Orders", "SERVING");
    const config = grpcConfig(`localhost:${server.port}`, { service: "orders.v1.Orders", headers: [{ key: "authorization", value: "Bearer t0ken" }, { key: "x-tenant", value: "acme" }] });
    const attempt = await grpcAttempt(config, loopback);
    expect(attempt).toMatchObject({ ok: true });
    expect(attempt.timing.dnsMs).not.toBeNull();
    expect(server.calls.at(-1)).toMatchObject({ service: "orders.v1.Orders", metadata: { authorization: "Bearer t0ken", "x-tenant": "acme" } });
  });

  it("an unknown service (NOT_FOUND) reads as SERVICE_UNKNOWN: a failure unless expected", async () => {
    const unknown = grpcConfig(server.uri, { service: "no.such.Service" });
    expect(await grpcAttempt(unknown, loopback)).toMatchObject({
      ok: false,
      reason: "assertion",
      error: "health status SERVICE_UNKNOWN of no.such.Service, expected SERVING",
    });
    expect(await grpcAttempt(grpcConfig(server.uri, { service: "no.such.Service", expectedStatus: "SERVICE_UNKNOWN" }), loopback)).toMatchObject({ ok: true });
  });

  it("times out on a server that does not answer in time, saying it was waiting for the response", async () => {
    server.delayMs = 2_000;
    const attempt = await grpcAttempt(grpcConfig(server.uri, { timeout: 300 }), loopback);
    expect(attempt).toMatchObject({ ok: false, reason: "timeout", error: "timed out after 300 ms while waiting for the response" });
    expect(attempt.timing.connectMs).toBeGreaterThan(0);
  });

  it("fails a refused connection with reason connect, and an address the guard refuses with reason blocked", async () => {
    const closed = await startGrpcHealthServer();
    await closed.close();
    expect(await grpcAttempt(grpcConfig(closed.uri), loopback)).toMatchObject({ ok: false, reason: "connect", error: `connection refused (${closed.uri})` });
    const strict = { addressPolicy: AddressPolicy.STRICT };
    const blocked = await grpcAttempt(grpcConfig(server.uri), strict);
    expect(blocked).toMatchObject({ ok: false, reason: "blocked" });
    expect(server.calls.length).toBeGreaterThan(0);
  });

  it("fails a name that does not resolve with reason dns", async () => {
    const attempt = await grpcAttempt(grpcConfig("no-such-host.invalid:50051"), loopback);
    expect(attempt).toMatchObject({ ok: false, reason: "dns" });
  });

  it("runCheck retries a failing call and the last attempt decides", async () => {
    server.set("", "NOT_SERVING");
    const outcome = await runCheck({ kind: "grpc", config: grpcConfig(server.uri, { retry: 1 }) }, loopback, { backoffMs: () => 0 });
    expect(outcome).toMatchObject({ status: "error", attempts: 2, reason: "assertion" });
  });
});

describe("gRPC health check against a server without the health service", () => {
  let server: GrpcHealthServer;
  beforeAll(async () => {
    server = await startGrpcHealthServer({ unimplemented: true });
  });
  afterAll(() => server.close());

  it("fails naming the gRPC status UNIMPLEMENTED, whatever status is expected", async () => {
    for (const expectedStatus of ["SERVING", "UNKNOWN"]) {
      const attempt = await grpcAttempt(grpcConfig(server.uri, { expectedStatus }), loopback);
      expect(attempt).toMatchObject({ ok: false, reason: "protocol" });
      expect(attempt.error).toMatch(/^health check failed with gRPC status UNIMPLEMENTED/);
    }
  });
});

describe("gRPC health check over TLS", () => {
  const trusted = trustedTestPki();
  const servers: GrpcHealthServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  const serving = async (served: { key: string; cert: string }) => {
    const server = await startGrpcHealthServer({ tls: served });
    servers.push(server);
    return server;
  };

  it("passes over a verified certificate, timing the handshake and recording the leaf", async () => {
    const served = await trusted.pki.leaf(10);
    const server = await serving(served);
    const attempt = await grpcAttempt(grpcConfig(`localhost:${server.port}`, { tls: true }), loopback);
    expect(attempt).toMatchObject({ ok: true, reason: null });
    expect(attempt.timing.tlsMs).toBeGreaterThan(0);
    expect(attempt.timing.firstByteMs).toBeGreaterThan(0);
    expect(attempt.certificate).toEqual({
      notAfter: served.notAfter.toISOString(),
      issuer: "CN=Vigil Test Intermediate, O=Vigil Tests",
      subjectAltNames: ["DNS:localhost", "IP Address:127.0.0.1"],
      chainNotAfter: served.notAfter.toISOString(),
    });
  });

  it("fails an expired certificate with reason tls and records none", async () => {
    const server = await serving(await trusted.pki.leaf(-1));
    const attempt = await grpcAttempt(grpcConfig(`localhost:${server.port}`, { tls: true }), loopback);
    expect(attempt).toMatchObject({ ok: false, reason: "tls", certificate: null });
    expect(attempt.error).toMatch(/certificate has expired/);
    expect(attempt.timing.firstByteMs).toBeNull();
  });

  it("fails a certificate for another name with reason tls", async () => {
    const server = await serving(await trusted.pki.leaf(30, { names: ["other.example"] }));
    const attempt = await grpcAttempt(grpcConfig(`localhost:${server.port}`, { tls: true }), loopback);
    expect(attempt).toMatchObject({ ok: false, reason: "tls" });
    expect(attempt.error).toMatch(/^TLS handshake with localhost failed: .*(altnames|does not match)/i);
  });

  it("fails plaintext against a TLS server rather than passing", async () => {
    const server = await serving(await trusted.pki.leaf(30));
    const attempt = await grpcAttempt(grpcConfig(`localhost:${server.port}`, { tls: false, timeout: 2000 }), loopback);
    expect(attempt.ok).toBe(false);
    expect(["connect", "protocol", "timeout"]).toContain(attempt.reason);
  });
});
