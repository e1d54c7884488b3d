import { parseMonitorConfig, type DnsMonitorConfig, type RecordAssertion } from "@vigil/domain";
import { dnsAttempt, lookupDnsRecords } from "../src/dns";
import { startDnsServer, type TestDnsServer } from "./support/dns-server";

let dns: TestDnsServer;

beforeAll(async () => {
  dns = await startDnsServer({
    "example.test": {
      A: ["192.0.2.1", "192.0.2.2"],
      AAAA: ["2001:db8::1"],
      MX: [
        { preference: 10, exchange: "Mail.Example.test" },
        { preference: 20, exchange: "backup.example.test" },
      ],
      // One record of two chunks, one of a single chunk.
      TXT: [["v=spf1 ", "include:_spf.example.test -all"], "hello world"],
    },
    "www.example.test": { CNAME: "example.test" },
    "alias.example.test": { CNAME: "www.example.test" },
    "only-txt.example.test": { TXT: ["nothing else"] },
    "big.example.test": { TXT: Array.from({ length: 20 }, (_, i) => `${"x".repeat(120)}-${i}`) },
    "slow.example.test": { A: ["192.0.2.9"], delayMs: 3000 },
    "broken.example.test": { servfail: true },
    "garbled.example.test": { A: ["192.0.2.1"], malformed: true },
  });
});

afterAll(async () => {
  await dns.stop();
});

const dnsConfig = (uri: string, recordAssertions: RecordAssertion[] = [], fields: Record<string, unknown> = {}): DnsMonitorConfig =>
  parseMonitorConfig("dns", { name: "dns", periodicity: "30s", uri, timeout: 5000, recordAssertions, ...fields });

const check = (uri: string, ...assertions: RecordAssertion[]) => dnsAttempt(dnsConfig(uri, assertions), { dnsServers: [dns.server] });

describe("dnsAttempt with record assertions", () => {
  // [record, comparator, target, passes]: every type with every comparator, passing and failing.
  const cases: [RecordAssertion["record"], RecordAssertion["comparator"], string, boolean][] = [
    ["A", "eq", "192.0.2.2", true], // several records: eq holds when any one equals
    ["A", "eq", "192.0.2.3", false],
    ["A", "neq", "192.0.2.3", true],
    ["A", "neq", "192.0.2.1", false], // neq fails when any record equals
    ["A", "contains", "192.0.2.", true],
    ["A", "contains", "198.51.", false],
    ["A", "not_contains", "198.51.", true],
    ["A", "not_contains", ".2.2", false],
    ["AAAA", "eq", "2001:DB8::1", true], // addresses compare without case
    ["AAAA", "eq", "2001:db8::2", false],
    ["AAAA", "neq", "2001:db8::2", true],
    ["AAAA", "neq", "2001:db8::1", false],
    ["AAAA", "contains", "db8", true],
    ["AAAA", "contains", "dead", false],
    ["AAAA", "not_contains", "dead", true],
    ["AAAA", "not_contains", "2001", false],
    ["MX", "eq", "mail.example.test.", true], // exchange host, trailing dot and case ignored
    ["MX", "eq", "MAIL.EXAMPLE.TEST", true],
    ["MX", "eq", "mx.example.test", false],
    ["MX", "neq", "mx.example.test", true],
    ["MX", "neq", "backup.example.test", false],
    ["MX", "contains", "backup", true],
    ["MX", "contains", "10", false], // the preference is not part of the value
    ["MX", "not_contains", "mx.", true],
    ["MX", "not_contains", "mail.", false],
    ["TXT", "eq", "v=spf1 include:_spf.example.test -all", true], // chunks joined with ""
    ["TXT", "eq", "v=spf1", false],
    ["TXT", "neq", "v=spf1", true],
    ["TXT", "neq", "hello world", false],
    ["TXT", "contains", "include:_spf", true],
    ["TXT", "contains", "Hello", false], // TXT is case-sensitive
    ["TXT", "not_contains", "v=DMARC1", true],
    ["TXT", "not_contains", "spf1 include", false], // across chunk boundaries
  ];

  it.each(cases)("%s %s %j on example.test passes: %s", async (record, comparator, target, passes) => {
    const attempt = await check("example.test", { record, comparator, target });
    expect(attempt.ok).toBe(passes);
    expect(attempt.error).toEqual(passes ? null : expect.stringMatching(new RegExp(`^${record} records \\[.*\\] do not satisfy ${comparator} `)));
    expect(attempt.reason).toBe(passes ? null : "assertion");
    expect(attempt.statusCode).toBeNull();
    expect(attempt.timing.dnsMs).toEqual(expect.any(Number));
    expect(attempt.timing).toMatchObject({ connectMs: null, tlsMs: null, firstByteMs: null, transferMs: null });
    expect(attempt.latencyMs).toBe(attempt.timing.dnsMs);
  });

  // CNAME has its own table: only names with a CNAME record have a value.
  const cnameCases: [RecordAssertion["comparator"], string, boolean][] = [
    ["eq", "Example.Test.", true],
    ["eq", "other.test", false],
    ["neq", "other.test", true],
    ["neq", "example.test", false],
    ["contains", "example", true],
    ["contains", "other", false],
    ["not_contains", "other", true],
    ["not_contains", "example", false],
  ];

  it.each(cnameCases)("CNAME %s %j on www.example.test passes: %s", async (comparator, target, passes) => {
    const attempt = await check("www.example.test", { record: "CNAME", comparator, target });
    expect(attempt.ok).toBe(passes);
  });

  it("checks every assertion and reports each one that fails", async () => {
    const attempt = await check(
      "example.test",
      { record: "A", comparator: "eq", target: "192.0.2.1" },
      { record: "MX", comparator: "eq", target: "nope.test" },
      { record: "TXT", comparator: "contains", target: "absent" },
    );
    expect(attempt.ok).toBe(false);
    expect(attempt.error).toBe(
      'MX records ["Mail.Example.test","backup.example.test"] do not satisfy eq "nope.test"; ' +
        'TXT records ["v=spf1 include:_spf.example.test -all","hello world"] do not satisfy contains "absent"',
    );
  });

  it("treats a type the name has no records of (ENODATA) as an empty list: neq passes, eq fails", async () => {
    expect(await check("only-txt.example.test", { record: "A", comparator: "neq", target: "192.0.2.1" })).toMatchObject({ ok: true });
    expect(await check("only-txt.example.test", { record: "MX", comparator: "not_contains", target: "mail" })).toMatchObject({ ok: true });
    const eq = await check("only-txt.example.test", { record: "A", comparator: "eq", target: "192.0.2.1" });
    expect(eq).toMatchObject({ ok: false, error: 'A records [] do not satisfy eq "192.0.2.1"' });
    // A name that is not a CNAME has no CNAME records.
    expect(await check("example.test", { record: "CNAME", comparator: "neq", target: "x.test" })).toMatchObject({ ok: true });
  });

  it("fails a name that does not exist (NXDOMAIN), even for neq", async () => {
    const attempt = await check("nope.example.test", { record: "A", comparator: "neq", target: "192.0.2.1" });
    expect(attempt).toMatchObject({ ok: false, error: "DNS lookup of nope.example.test failed: ENOTFOUND (no such domain)", reason: "dns" });
  });

  it("fails on SERVFAIL", async () => {
    const attempt = await check("broken.example.test", { record: "TXT", comparator: "not_contains", target: "x" });
    expect(attempt).toMatchObject({ ok: false, error: "DNS lookup of broken.example.test (TXT) failed: ESERVFAIL (server failure)", reason: "dns" });
  });

  it("fails a malformed answer as a protocol failure", async () => {
    const attempt = await check("garbled.example.test", { record: "A", comparator: "eq", target: "192.0.2.1" });
    expect(attempt).toMatchObject({ ok: false, error: "DNS lookup of garbled.example.test (A) failed: EBADRESP (malformed answer)", reason: "protocol" });
  });

  it("reads TXT answers too large for UDP (the resolver retries over TCP)", async () => {
    const tcpBefore = dns.tcpQueries;
    const attempt = await check("big.example.test", { record: "TXT", comparator: "eq", target: `${"x".repeat(120)}-19` });
    expect(attempt).toMatchObject({ ok: true, error: null });
    expect(dns.tcpQueries).toBeGreaterThan(tcpBefore);
  });
});

describe("dnsAttempt without assertions", () => {
  it("requires an A or AAAA record, following a CNAME chain", async () => {
    expect(await check("example.test")).toMatchObject({ ok: true, error: null, reason: null });
    expect(await check("alias.example.test")).toMatchObject({ ok: true, error: null, reason: null });
  });

  it("fails a name without addresses, and a name that does not exist, as not resolving", async () => {
    expect(await check("only-txt.example.test")).toMatchObject({
      ok: false,
      error: "DNS lookup of only-txt.example.test found no A or AAAA records",
      reason: "dns",
    });
    expect(await check("nope.example.test")).toMatchObject({ ok: false, error: expect.stringContaining("ENOTFOUND"), reason: "dns" });
  });
});

describe("timeouts and aborts", () => {
  it("fails a delayed answer in about the timeout", async () => {
    const started = performance.now();
    const attempt = await dnsAttempt(dnsConfig("slow.example.test", [], { timeout: 300 }), { dnsServers: [dns.server] });
    const elapsed = performance.now() - started;
    expect(attempt).toMatchObject({ ok: false, error: "timed out after 300 ms (DNS lookup of slow.example.test)", reason: "timeout" });
    expect(attempt.timing.dnsMs).toEqual(expect.any(Number));
    // Loose bounds (shared machines): not before the timeout, and well before the 3 s answer.
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2500);
  });

  it("rejects with the abort reason when aborted", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("agent stopping")), 50);
    await expect(dnsAttempt(dnsConfig("slow.example.test"), { dnsServers: [dns.server], signal: controller.signal })).rejects.toThrow(
      "agent stopping",
    );
  });
});

describe("lookupDnsRecords", () => {
  it("returns the records found per type, for logs and tests", async () => {
    const lookup = await lookupDnsRecords("example.test", ["A", "AAAA", "CNAME", "MX", "TXT"], { dnsServers: [dns.server] }, 5000);
    expect(lookup).toEqual({
      records: {
        A: ["192.0.2.1", "192.0.2.2"],
        AAAA: ["2001:db8::1"],
        CNAME: [],
        MX: ["Mail.Example.test", "backup.example.test"],
        TXT: ["v=spf1 include:_spf.example.test -all", "hello world"],
      },
      error: null,
      reason: null,
      dnsMs: expect.any(Number),
    });
  });
});
