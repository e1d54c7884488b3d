import { createServer, type Server, type Socket } from "node:net";
import { parseMonitorConfig, type TcpMonitorConfig } from "@vigil/domain";
import { tcpAttempt } from "../src/tcp";
import { startDnsServer, type TestDnsServer } from "./support/dns-server";
import { afterBusyFor } from "./support/busy";
import { loopback } from "./support/loopback";

const tcpConfig = (uri: string, fields: Record<string, unknown> = {}): TcpMonitorConfig =>
  parseMonitorConfig("tcp", { name: "tcp", periodicity: "30s", uri, timeout: 5000, ...fields });

/** A listener that counts the connections it accepts. */
interface Listener {
  port: number;
  accepted: number;
  close(): Promise<void>;
}

async function listen(host: string): Promise<Listener> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    listener.accepted += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const listener: Listener = {
    port: address.port,
    accepted: 0,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return listener;
}

/** A port nobody listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const listener = await listen("127.0.0.1");
  await listener.close();
  return listener.port;
}

/** Waits until the server side has seen `count` connections (accept runs a tick after the client's connect). */
async function accepted(listener: Listener, count: number): Promise<number> {
  for (let i = 0; i < 100 && listener.accepted < count; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  return listener.accepted;
}

let listener: Listener;
let dns: TestDnsServer;

beforeAll(async () => {
  listener = await listen("127.0.0.1");
  dns = await startDnsServer({
    "svc.test": { A: ["127.0.0.1"] },
    // The listener is on 127.0.0.1 only, so 127.0.0.2 refuses.
    "multi.test": { A: ["127.0.0.2", "127.0.0.1"] },
    "allrefuse.test": { A: ["127.0.0.2", "127.0.0.3"] },
    "v6only.test": { AAAA: ["::1"] },
    "slow.test": { A: ["127.0.0.1"], delayMs: 3000 },
    "broken.test": { servfail: true },
    "empty.test": { TXT: ["no addresses here"] },
  });
});

afterAll(async () => {
  await listener.close();
  await dns.stop();
});

describe("tcpAttempt", () => {
  it("connects to an IPv4 address without a DNS lookup", async () => {
    const before = listener.accepted;
    const attempt = await tcpAttempt(tcpConfig(`127.0.0.1:${listener.port}`), loopback);
    expect(attempt).toMatchObject({ ok: true, error: null, reason: null, statusCode: null });
    expect(attempt.timing.dnsMs).toBeNull();
    expect(attempt.timing.connectMs).toEqual(expect.any(Number));
    expect(attempt.timing.connectMs).toBeGreaterThan(0);
    expect(attempt.timing).toMatchObject({ tlsMs: null, firstByteMs: null, transferMs: null });
    expect(attempt.latencyMs).toBe(attempt.timing.connectMs);
    expect(await accepted(listener, before + 1)).toBe(before + 1);
  });

  it("times connections made together each on its own event, not after the work of the checks read before it", async () => {
    // Both connect on loopback at once, so the loop sees them in the same turn; each check's own work after
    // its connection then takes busyMs: neither may count the other's.
    const busyMs = 300;
    const uri = `127.0.0.1:${listener.port}`;
    const attempts = await Promise.all([1, 2].map(() => tcpAttempt(tcpConfig(uri), loopback).then(afterBusyFor(busyMs))));
    for (const attempt of attempts) {
      expect(attempt.ok).toBe(true);
      expect(attempt.latencyMs).toBeLessThan(busyMs);
    }
  });

  it("closes the connection with a reset, so the agent keeps no TIME_WAIT entry for it", async () => {
    const ends: string[] = [];
    const server = createServer((socket) => {
      socket.on("end", () => ends.push("end"));
      socket.on("error", (error: NodeJS.ErrnoException) => ends.push(error.code ?? error.message));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      expect(await tcpAttempt(tcpConfig(`127.0.0.1:${port}`), loopback)).toMatchObject({ ok: true });
      for (let i = 0; i < 100 && ends.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(ends).toEqual(["ECONNRESET"]);
    } finally {
      server.close();
    }
  });

  it("resolves localhost with the system resolver and times that lookup", async () => {
    const attempt = await tcpAttempt(tcpConfig(`localhost:${listener.port}`), loopback);
    expect(attempt.ok).toBe(true);
    expect(attempt.timing.dnsMs).toEqual(expect.any(Number));
    expect(attempt.latencyMs).toBeCloseTo((attempt.timing.dnsMs ?? 0) + (attempt.timing.connectMs ?? 0), 6);
  });

  it("resolves a name through the configured DNS servers", async () => {
    const before = dns.queriesFor("svc.test");
    const attempt = await tcpAttempt(tcpConfig(`svc.test:${listener.port}`), { ...loopback, dnsServers: [dns.server] });
    expect(attempt).toMatchObject({ ok: true, error: null, reason: null });
    expect(attempt.timing.dnsMs).toEqual(expect.any(Number));
    expect(attempt.timing.connectMs).toEqual(expect.any(Number));
    expect(dns.queriesFor("svc.test")).toBeGreaterThan(before);
  });

  it("tries each address of a name until one accepts, and reports the last failure when none does", async () => {
    const ok = await tcpAttempt(tcpConfig(`multi.test:${listener.port}`), { ...loopback, dnsServers: [dns.server] });
    expect(ok).toMatchObject({ ok: true, error: null });
    const refused = await tcpAttempt(tcpConfig(`allrefuse.test:${listener.port}`), { ...loopback, dnsServers: [dns.server] });
    expect(refused).toMatchObject({ error: `connection refused (127.0.0.3:${listener.port})`, reason: "connect" });
  });

  it("reports a refused connection with the address", async () => {
    const port = await closedPort();
    const attempt = await tcpAttempt(tcpConfig(`127.0.0.1:${port}`), loopback);
    expect(attempt).toMatchObject({ ok: false, error: `connection refused (127.0.0.1:${port})`, reason: "connect", statusCode: null });
    expect(attempt.timing.dnsMs).toBeNull();
    expect(attempt.timing.connectMs).toEqual(expect.any(Number));
  });

  it("fails a name that does not exist, naming the lookup", async () => {
    const attempt = await tcpAttempt(tcpConfig(`nope.test:${listener.port}`), { ...loopback, dnsServers: [dns.server] });
    expect(attempt).toMatchObject({ ok: false, reason: "dns" });
    expect(attempt.error).toMatch(/^DNS lookup of nope\.test failed: ENOTFOUND/);
    expect(attempt.timing.dnsMs).toEqual(expect.any(Number));
    expect(attempt.timing.connectMs).toBeNull();
  });

  it("fails on SERVFAIL and on a name without addresses", async () => {
    const broken = await tcpAttempt(tcpConfig(`broken.test:${listener.port}`), { ...loopback, dnsServers: [dns.server] });
    expect(broken.error).toMatch(/^DNS lookup of broken\.test failed: ESERVFAIL/);
    expect(broken.reason).toBe("dns");
    const empty = await tcpAttempt(tcpConfig(`empty.test:${listener.port}`), { ...loopback, dnsServers: [dns.server] });
    expect(empty.error).toMatch(/^DNS lookup of empty\.test failed: ENODATA/);
    expect(empty.reason).toBe("dns");
  });

  it("times out when the DNS answer comes after the timeout, which covers DNS and connect", async () => {
    const started = performance.now();
    const attempt = await tcpAttempt(tcpConfig(`slow.test:${listener.port}`, { timeout: 200 }), { ...loopback, dnsServers: [dns.server] });
    const elapsed = performance.now() - started;
    expect(attempt).toMatchObject({ ok: false, error: "timed out after 200 ms (DNS lookup of slow.test)", reason: "timeout" });
    expect(attempt.timing.connectMs).toBeNull();
    // Loose bounds: the lookup was given up on, long before the 3 s answer.
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(2500);
  });

  it("treats timeout 0 as the largest timeout, not as no time at all", async () => {
    const attempt = await tcpAttempt(tcpConfig(`127.0.0.1:${listener.port}`, { timeout: 0 }), loopback);
    expect(attempt.ok).toBe(true);
  });

  it("rejects with the abort reason when the check is aborted, instead of blaming the target", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("agent stopping")), 50);
    await expect(tcpAttempt(tcpConfig(`slow.test:${listener.port}`), { ...loopback, dnsServers: [dns.server], signal: controller.signal })).rejects.toThrow(
      "agent stopping",
    );
  });

  describe("IPv6", () => {
    let v6: Listener | null = null;
    beforeAll(async () => {
      try {
        v6 = await listen("::1");
      } catch {
        v6 = null; // This machine has no IPv6 loopback: the cases below are skipped.
      }
    });
    afterAll(async () => {
      await v6?.close();
    });

    it("connects to [::1]", async () => {
      if (v6 === null) return console.warn("skipped: cannot bind ::1");
      const attempt = await tcpAttempt(tcpConfig(`[::1]:${v6.port}`), loopback);
      expect(attempt).toMatchObject({ ok: true, error: null });
      expect(attempt.timing.dnsMs).toBeNull();
    });

    it("falls back to AAAA records when a name has no A records", async () => {
      if (v6 === null) return console.warn("skipped: cannot bind ::1");
      const attempt = await tcpAttempt(tcpConfig(`v6only.test:${v6.port}`), { ...loopback, dnsServers: [dns.server] });
      expect(attempt).toMatchObject({ ok: true, error: null });
    });

    it("names the address in brackets when refused", async () => {
      if (v6 === null) return console.warn("skipped: cannot bind ::1");
      const port = await closedPort();
      const attempt = await tcpAttempt(tcpConfig(`[::1]:${port}`), loopback);
      expect(attempt).toMatchObject({ error: `connection refused ([::1]:${port})`, reason: "connect" });
    });
  });
});
