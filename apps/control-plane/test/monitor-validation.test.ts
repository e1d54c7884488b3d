/**
 * Field rules and limits of monitor create/update and ListMonitors, through
 * the public RPC API (and, for protocol-level input, plain HTTP). Validation
 * does not depend on the database, so this runs on PGlite only.
 */
import { Code } from "@connectrpc/connect";
import {
  HTTPMethod,
  JsonComparator,
  NumberComparator,
  Periodicity,
  RecordComparator,
  Region,
  StringComparator,
  type DNSMonitorSchema,
  type HTTPMonitor,
  type HTTPMonitorSchema,
  type TCPMonitorSchema,
} from "@vigil/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { rejection } from "./support/codes";
import { startTestApi, type Protocol, type TestApi, type WorkspaceKeys } from "./support/api";

type HttpInit = MessageInitShape<typeof HTTPMonitorSchema>;
type TcpInit = MessageInitShape<typeof TCPMonitorSchema>;
type DnsInit = MessageInitShape<typeof DNSMonitorSchema>;
/** Fields to lay over a valid monitor; a field set to undefined is left out. */
type Patch<T> = { [K in keyof T]?: T[K] | undefined };

const VALID_HTTP: HttpInit = { name: "site", url: "https://example.com", periodicity: Periodicity.PERIODICITY_1M };
const VALID_TCP: TcpInit = { name: "port", uri: "example.com:443", periodicity: Periodicity.PERIODICITY_1M };
const VALID_DNS: DnsInit = { name: "zone", uri: "example.com", periodicity: Periodicity.PERIODICITY_1M };

function withPatch<T extends object>(valid: T, patch: Patch<T>): T {
  const out: Record<string, unknown> = { ...valid, ...patch };
  for (const [key, value] of Object.entries(out)) if (value === undefined) delete out[key];
  return out as T;
}

const chars = (n: number) => "a".repeat(n);
const urlOfLength = (n: number) => {
  const base = "https://example.com/";
  return base + "p".repeat(n - base.length);
};
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
const headers = (n: number) => times(n, (i) => ({ key: `X-Header-${i}`, value: `v${i}` }));
const statusCodeAssertions = (n: number) => times(n, (i) => ({ target: BigInt(200 + i), comparator: NumberComparator.EQUAL }));
const bodyAssertions = (n: number) => times(n, (i) => ({ target: `ok${i}`, comparator: StringComparator.CONTAINS }));
const jsonBodyAssertions = (n: number) => times(n, (i) => ({ path: `$.checks[${i}].ok`, comparator: JsonComparator.EQUAL, target: "true" }));
const headerAssertions = (n: number) => times(n, (i) => ({ key: `X-Check-${i}`, target: "1", comparator: StringComparator.CONTAINS }));
const recordAssertions = (n: number) => times(n, (i) => ({ record: "A", target: `192.0.2.${i}`, comparator: RecordComparator.EQUAL }));
/** An enum number the proto does not define. */
const unknown = <T>(n: number) => n as unknown as T;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The call fails with invalid_argument, and one of its violations is `<field>: <rule>...`. */
async function expectInvalid(call: Promise<unknown>, field: string, rule: string) {
  const error = await rejection(call);
  expect({ code: Code[error.code], message: error.rawMessage }).toEqual({ code: Code[Code.InvalidArgument], message: expect.any(String) });
  expect(error.rawMessage.split("; ")).toContainEqual(expect.stringMatching(new RegExp(`^${escape(field)}: ${escape(rule)}`)));
}

let api: TestApi;
/** Receives every create that must be accepted. */
let accepting: WorkspaceKeys;
/** Receives every create that must be rejected; holds exactly one monitor, made in beforeAll. */
let rejecting: WorkspaceKeys;
let rejectingTotalBefore: number;

beforeAll(async () => {
  api = await startTestApi("pglite");
  accepting = await api.workspace();
  rejecting = await api.workspace();
  await api.client(rejecting.write.key).createHTTPMonitor({ monitor: VALID_HTTP });
  rejectingTotalBefore = (await api.client(rejecting.read.key).listMonitors({})).totalSize;
});
afterAll(() => api.close());

const acceptingClient = () => api.client(accepting.write.key);
const rejectingClient = () => api.client(rejecting.write.key);

it("reports a broken rule once per field, even when several checks fail", async () => {
  const error = await rejection(rejectingClient().createHTTPMonitor({ monitor: { ...VALID_HTTP, timeout: 9223372036854775807n } }));
  expect(error.rawMessage).toBe("monitor.timeout: must be an integer from 0 to 120000");
});

describe("CreateHTTPMonitor", () => {
  it.each<[string, Patch<HttpInit>]>([
    ["a name of 256 characters", { name: chars(256) }],
    ["a url of 2048 characters", { url: urlOfLength(2048) }],
    ["an http:// url", { url: "http://127.0.0.1:8080/health" }],
    ["timeout 0", { timeout: 0n }],
    ["timeout 120000", { timeout: 120_000n }],
    ["retry 0", { retry: 0n }],
    ["retry 10", { retry: 10n }],
    ["degradedAt 0", { degradedAt: 0n }],
    ["a description of 1024 characters", { description: chars(1024) }],
    ["20 headers", { headers: headers(20) }],
    ["10 status code assertions", { statusCodeAssertions: statusCodeAssertions(10) }],
    ["10 body assertions", { bodyAssertions: bodyAssertions(10) }],
    ["10 header assertions", { headerAssertions: headerAssertions(10) }],
    ["10 JSON body assertions", { jsonBodyAssertions: jsonBodyAssertions(10) }],
    ["a JSON body assertion with a filter and exists", { jsonBodyAssertions: [{ path: "$.services[?@.critical == true]", comparator: JsonComparator.EXISTS, target: "" }] }],
    ["status code target 100", { statusCodeAssertions: [{ target: 100n, comparator: NumberComparator.EQUAL }] }],
    ["status code target 599", { statusCodeAssertions: [{ target: 599n, comparator: NumberComparator.EQUAL }] }],
    ["a method", { method: HTTPMethod.HTTP_METHOD_POST }],
    ["distinct regions", { regions: [Region.HOSTA_AMS, Region.HOSTB_FRA, Region.HOSTC_ASIA_SOUTHEAST1] }],
    ["an http OTLP endpoint", { openTelemetry: { endpoint: "http://127.0.0.1:4318/v1/metrics", headers: [{ key: "Authorization", value: "Bearer t" }] } }],
    ["an https OTLP endpoint", { openTelemetry: { endpoint: "https://otlp.example.com/v1/metrics", headers: [] } }],
    ["traceHeader off", { traceHeader: false }],
    ["certificate warnings off (certificateExpiryDays 0)", { certificateExpiryDays: 0n }],
    ["certificateExpiryDays at its maximum", { certificateExpiryDays: 3650n }],
    ["a traceparent header of its own", { headers: [{ key: "traceparent", value: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }] }],
    ["OTLP headers without an endpoint (the agent's OTLP defaults apply)", { openTelemetry: { endpoint: "", headers: [{ key: "x-tenant", value: "a" }] } }],
  ])("accepts %s and stores it", async (_, patch) => {
    const { monitor } = await acceptingClient().createHTTPMonitor({ monitor: withPatch(VALID_HTTP, patch) });
    expect(monitor).toMatchObject(patch);
    const stored = await acceptingClient().getMonitor({ id: monitor!.id });
    expect(stored.monitor?.config.value).toMatchObject(patch);
  });

  it.each<[string, Patch<HttpInit>, string, string]>([
    ["a name of 257 characters", { name: chars(257) }, "monitor.name", "must be at most 256 characters"],
    ["an empty name", { name: "" }, "monitor.name", "must not be empty"],
    ["a missing name", { name: undefined }, "monitor.name", "is required"],
    ["a missing url", { url: undefined }, "monitor.url", "is required"],
    ["a missing periodicity", { periodicity: undefined }, "monitor.periodicity", "is required"],
    ["a url of 2049 characters", { url: urlOfLength(2049) }, "monitor.url", "must be at most 2048 characters"],
    ["an ftp:// url", { url: "ftp://example.com/file" }, "monitor.url", "must be an absolute http:// or https:// URL"],
    ["a url without scheme", { url: "example.com" }, "monitor.url", "must be an absolute http:// or https:// URL"],
    ["timeout -1", { timeout: -1n }, "monitor.timeout", "must be an integer from 0 to 120000"],
    ["timeout 120001", { timeout: 120_001n }, "monitor.timeout", "must be an integer from 0 to 120000"],
    ["retry -1", { retry: -1n }, "monitor.retry", "must be an integer from 0 to 10"],
    ["retry 11", { retry: 11n }, "monitor.retry", "must be an integer from 0 to 10"],
    ["degradedAt -1", { degradedAt: -1n }, "monitor.degradedAt", "must be an integer from 0 to 120000"],
    ["certificateExpiryDays -1", { certificateExpiryDays: -1n }, "monitor.certificateExpiryDays", "must be an integer from 0 to 3650"],
    ["certificateExpiryDays 3651", { certificateExpiryDays: 3651n }, "monitor.certificateExpiryDays", "must be an integer from 0 to 3650"],
    ["a description of 1025 characters", { description: chars(1025) }, "monitor.description", "must be at most 1024 characters"],
    ["21 headers", { headers: headers(21) }, "monitor.headers", "must have at most 20 entries"],
    ["a header name with a space", { headers: [{ key: "Bad Header", value: "x" }] }, "monitor.headers[0].key", "must be a valid HTTP header name"],
    ["an empty header name", { headers: [{ key: "", value: "x" }] }, "monitor.headers[0].key", "must not be empty"],
    ["a header value with a line break", { headers: [{ key: "X-Ok", value: "a\r\nX-Injected: 1" }] }, "monitor.headers[0].value", "must not contain line breaks"],
    ["11 status code assertions", { statusCodeAssertions: statusCodeAssertions(11) }, "monitor.statusCodeAssertions", "must have at most 10 entries"],
    ["11 body assertions", { bodyAssertions: bodyAssertions(11) }, "monitor.bodyAssertions", "must have at most 10 entries"],
    ["11 header assertions", { headerAssertions: headerAssertions(11) }, "monitor.headerAssertions", "must have at most 10 entries"],
    ["11 JSON body assertions", { jsonBodyAssertions: jsonBodyAssertions(11) }, "monitor.jsonBodyAssertions", "must have at most 10 entries"],
    ["a JSONPath query that does not parse", { jsonBodyAssertions: [...jsonBodyAssertions(2), { path: "$.items[", comparator: JsonComparator.EXISTS }] }, "monitor.jsonBodyAssertions[2].path", "must be a JSONPath query (RFC 9535)"],
    ["a JSONPath query without $", { jsonBodyAssertions: [{ path: "status", comparator: JsonComparator.EQUAL, target: "ok" }] }, "monitor.jsonBodyAssertions[0].path", "must be a JSONPath query (RFC 9535)"],
    ["a JSON body assertion without comparator", { jsonBodyAssertions: [{ path: "$.a", target: "1", comparator: JsonComparator.UNSPECIFIED }] }, "monitor.jsonBodyAssertions[0].comparator", "is required"],
    ["a target for not_exists", { jsonBodyAssertions: [{ path: "$.a", target: "1", comparator: JsonComparator.NOT_EXISTS }] }, "monitor.jsonBodyAssertions[0].target", "must be empty: not_exists takes no target"],
    ["a target that is not a number for gt", { jsonBodyAssertions: [{ path: "$.a", target: "high", comparator: JsonComparator.GREATER_THAN }] }, "monitor.jsonBodyAssertions[0].target", "must be a number: gt compares numbers"],
    ["status code target 99", { statusCodeAssertions: [{ target: 99n, comparator: NumberComparator.EQUAL }] }, "monitor.statusCodeAssertions[0].target", "must be an integer from 100 to 599"],
    ["status code target 600", { statusCodeAssertions: [{ target: 600n, comparator: NumberComparator.EQUAL }] }, "monitor.statusCodeAssertions[0].target", "must be an integer from 100 to 599"],
    ["a status code assertion without comparator", { statusCodeAssertions: [{ target: 200n, comparator: NumberComparator.UNSPECIFIED }] }, "monitor.statusCodeAssertions[0].comparator", "is required"],
    ["a body assertion without comparator", { bodyAssertions: [{ target: "ok", comparator: StringComparator.UNSPECIFIED }] }, "monitor.bodyAssertions[0].comparator", "is required"],
    ["a header assertion without comparator", { headerAssertions: [{ key: "X-A", target: "1", comparator: StringComparator.UNSPECIFIED }] }, "monitor.headerAssertions[0].comparator", "is required"],
    ["a header assertion with an invalid header name", { headerAssertions: [{ key: "a:b", target: "1", comparator: StringComparator.CONTAINS }] }, "monitor.headerAssertions[0].key", "must be a valid HTTP header name"],
    // Unknown enum numbers survive the binary decoder; validation must name them.
    ["periodicity 99", { periodicity: unknown<Periodicity>(99) }, "monitor.periodicity", "must be one of"],
    ["method 99", { method: unknown<HTTPMethod>(99) }, "monitor.method", "must be one of"],
    ["region 999", { regions: [Region.HOSTA_AMS, unknown<Region>(999)] }, "monitor.regions[1]", "must be one of"],
    ["a repeated region", { regions: [Region.HOSTA_AMS, Region.HOSTA_FRA, Region.HOSTA_AMS] }, "monitor.regions[2]", "must not repeat hostA-ams"],
    ["status code comparator 99", { statusCodeAssertions: [{ target: 200n, comparator: unknown<NumberComparator>(99) }] }, "monitor.statusCodeAssertions[0].comparator", "must be one of"],
    ["body comparator 99", { bodyAssertions: [{ target: "ok", comparator: unknown<StringComparator>(99) }] }, "monitor.bodyAssertions[0].comparator", "must be one of"],
    ["header comparator 99", { headerAssertions: [{ key: "X-A", target: "1", comparator: unknown<StringComparator>(99) }] }, "monitor.headerAssertions[0].comparator", "must be one of"],
    ["a grpc:// OTLP endpoint", { openTelemetry: { endpoint: "grpc://x:4317" } }, "monitor.openTelemetry.endpoint", "must be an http:// or https:// OTLP endpoint URL"],
    ["an ftp:// OTLP endpoint", { openTelemetry: { endpoint: "ftp://x" } }, "monitor.openTelemetry.endpoint", "must be an http:// or https:// OTLP endpoint URL"],
  ])("rejects %s", async (_, patch, field, rule) => {
    await expectInvalid(rejectingClient().createHTTPMonitor({ monitor: withPatch(VALID_HTTP, patch) }), field, rule);
  });

  it("rejects a request without a monitor", async () => {
    await expectInvalid(rejectingClient().createHTTPMonitor({}), "monitor", "is required");
  });

  it("rejects a traceHeader that is not a boolean, naming it, over the Connect JSON protocol", async () => {
    const res = await api.fetch("/monitor.v1.MonitorService/CreateHTTPMonitor", {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-key": rejecting.write.key },
      body: JSON.stringify({ monitor: { name: "m", url: "https://example.com", periodicity: "PERIODICITY_1M", traceHeader: "yes" } }),
    });
    const body = (await res.json()) as { code: string; message: string };
    expect([res.status, body.code]).toEqual([400, "invalid_argument"]);
    // protobuf-es's JSON decoder names the field as the proto spells it, as it does for every field.
    expect(body.message).toMatch(/trace_header.*expected boolean/);
  });
});

describe("CreateTCPMonitor", () => {
  it.each(["example.com:443", "127.0.0.1:80", "[::1]:8080", "example.com:1", "example.com:65535"])("accepts uri %s", async (uri) => {
    const { monitor } = await acceptingClient().createTCPMonitor({ monitor: { ...VALID_TCP, uri } });
    expect(monitor?.uri).toBe(uri);
  });

  it.each(["example.com", "example.com:0", "example.com:65536", "[zzz]:80", "http://example.com:80", "::1:80"])("rejects uri %s", async (uri) => {
    await expectInvalid(rejectingClient().createTCPMonitor({ monitor: { ...VALID_TCP, uri } }), "monitor.uri", "must be host:port");
  });

  it.each<[string, Patch<TcpInit>, string, string]>([
    ["a missing uri", { uri: undefined }, "monitor.uri", "is required"],
    ["a uri of 2049 characters", { uri: `${chars(2043)}.a:443` }, "monitor.uri", "must be at most 2048 characters"],
    ["timeout 120001", { timeout: 120_001n }, "monitor.timeout", "must be an integer from 0 to 120000"],
    ["retry 11", { retry: 11n }, "monitor.retry", "must be an integer from 0 to 10"],
    ["periodicity 99", { periodicity: unknown<Periodicity>(99) }, "monitor.periodicity", "must be one of"],
    ["a grpc:// OTLP endpoint", { openTelemetry: { endpoint: "grpc://x:4317" } }, "monitor.openTelemetry.endpoint", "must be an http:// or https:// OTLP endpoint URL"],
  ])("rejects %s", async (_, patch, field, rule) => {
    await expectInvalid(rejectingClient().createTCPMonitor({ monitor: withPatch(VALID_TCP, patch) }), field, rule);
  });
});

describe("CreateDNSMonitor", () => {
  it.each<[string, Patch<DnsInit>]>([
    ["uri example.com", { uri: "example.com" }],
    ["10 record assertions", { recordAssertions: recordAssertions(10) }],
    ...["A", "AAAA", "CNAME", "MX", "TXT"].map((record): [string, Patch<DnsInit>] => [
      `record type ${record}`,
      { recordAssertions: [{ record, target: "x", comparator: RecordComparator.CONTAINS }] },
    ]),
  ])("accepts %s and stores it", async (_, patch) => {
    const { monitor } = await acceptingClient().createDNSMonitor({ monitor: withPatch(VALID_DNS, patch) });
    expect(monitor).toMatchObject(patch);
  });

  it.each<[string, Patch<DnsInit>, string, string]>([
    ["uri 'not a domain'", { uri: "not a domain" }, "monitor.uri", "must be a domain name"],
    ["a uri of 2049 characters", { uri: chars(2049) }, "monitor.uri", "must be at most 2048 characters"],
    ["a missing uri", { uri: undefined }, "monitor.uri", "is required"],
    ["11 record assertions", { recordAssertions: recordAssertions(11) }, "monitor.recordAssertions", "must have at most 10 entries"],
    ["record type SRV", { recordAssertions: [{ record: "SRV", target: "x", comparator: RecordComparator.EQUAL }] }, "monitor.recordAssertions[0].record", "must be one of A, AAAA, CNAME, MX, TXT"],
    ["a record assertion without comparator", { recordAssertions: [{ record: "A", target: "x", comparator: RecordComparator.UNSPECIFIED }] }, "monitor.recordAssertions[0].comparator", "is required"],
    ["record comparator 99", { recordAssertions: [{ record: "A", target: "x", comparator: unknown<RecordComparator>(99) }] }, "monitor.recordAssertions[0].comparator", "must be one of"],
    ["region 999", { regions: [unknown<Region>(999)] }, "monitor.regions[0]", "must be one of"],
    ["an ftp:// OTLP endpoint", { openTelemetry: { endpoint: "ftp://x" } }, "monitor.openTelemetry.endpoint", "must be an http:// or https:// OTLP endpoint URL"],
  ])("rejects %s", async (_, patch, field, rule) => {
    await expectInvalid(rejectingClient().createDNSMonitor({ monitor: withPatch(VALID_DNS, patch) }), field, rule);
  });
});

describe("every protocol", () => {
  it.each<Protocol>(["connect", "grpc", "grpc-web"])("creates a valid monitor over %s", async (protocol) => {
    const name = `over ${protocol}`;
    const { monitor } = await api.client(accepting.write.key, protocol).createHTTPMonitor({ monitor: { ...VALID_HTTP, name } });
    expect(monitor).toMatchObject({ name, url: VALID_HTTP.url, id: expect.stringMatching(/.+/) });
  });

  it.each<Protocol>(["connect", "grpc", "grpc-web"])("answers invalid_argument for an invalid monitor over %s", async (protocol) => {
    const call = api.client(rejecting.write.key, protocol).createHTTPMonitor({ monitor: { ...VALID_HTTP, timeout: 120_001n } });
    await expectInvalid(call, "monitor.timeout", "must be an integer from 0 to 120000");
  });
});

describe("plain HTTP to CreateHTTPMonitor", () => {
  const PATH = "/monitor.v1.MonitorService/CreateHTTPMonitor";
  const post = (key: string, body: NonNullable<RequestInit["body"]>, init: RequestInit = {}) =>
    api.fetch(PATH, { method: "POST", headers: { "content-type": "application/json", "x-service-key": key }, body, ...init });
  const answer = async (response: Response) => ({ status: response.status, body: (await response.json()) as { code?: string; message?: string } });
  const jsonWith = (fields: object) =>
    JSON.stringify({ monitor: { name: "raw", url: "https://example.com", periodicity: "PERIODICITY_1M", ...fields } });
  const VALID_JSON = jsonWith({});
  const padded = (bytes: number) => VALID_JSON + " ".repeat(bytes - VALID_JSON.length);

  it.each<[string, string, RegExp]>([
    ["malformed JSON", '{"monitor":', /JSON/],
    ["a number for a string field", '{"monitor":{"name":5}}', /HTTPMonitor\.name\b/],
    ["a string for an int64 field", '{"monitor":{"timeout":"abc"}}', /^monitor\.timeout: must be an integer/],
  ])("answers 400 invalid_argument for %s", async (_, body, names) => {
    const { status, body: error } = await answer(await post(rejecting.write.key, body));
    expect({ status, code: error.code }).toEqual({ status: 400, code: "invalid_argument" });
    expect(error.message).toMatch(names);
  });

  // The bodies are otherwise valid, so a 400 can only come from the field under test.
  // Sent with the accepting workspace's key: these must be rejected, but a silently
  // accepted one should fail here, not in the "no partial write" count below.
  it.each<[string, object, string]>([
    // Unknown names are refused by the JSON decoder, which names the enum and the value.
    ["periodicity name PERIODICITY_2M", { periodicity: "PERIODICITY_2M" }, 'monitor.v1.Periodicity from JSON: "PERIODICITY_2M"'],
    ["method name HTTP_METHOD_BREW", { method: "HTTP_METHOD_BREW" }, 'monitor.v1.HTTPMethod from JSON: "HTTP_METHOD_BREW"'],
    ["region name REGION_NOPE", { regions: ["REGION_HOSTA_AMS", "REGION_NOPE"] }, 'monitor.v1.Region from JSON: "REGION_NOPE"'],
    ["comparator name NUMBER_COMPARATOR_NOPE", { statusCodeAssertions: [{ target: "200", comparator: "NUMBER_COMPARATOR_NOPE" }] }, 'monitor.v1.NumberComparator from JSON: "NUMBER_COMPARATOR_NOPE"'],
    ["comparator name JSON_COMPARATOR_NOPE", { jsonBodyAssertions: [{ path: "$.a", comparator: "JSON_COMPARATOR_NOPE" }] }, 'monitor.v1.JsonComparator from JSON: "JSON_COMPARATOR_NOPE"'],
    ["a misspelt field name", { nmae: "typo" }, 'key "nmae" is unknown'],
    ["periodicity 99", { periodicity: 99 }, "monitor.periodicity: must be one of"],
    ["method 99", { method: 99 }, "monitor.method: must be one of"],
    ["region 999", { regions: [999] }, "monitor.regions[0]: must be one of"],
    ["comparator 99", { statusCodeAssertions: [{ target: "200", comparator: 99 }] }, "monitor.statusCodeAssertions[0].comparator: must be one of"],
  ])("answers 400 invalid_argument naming the unknown enum value or key in JSON: %s", async (_, fields, violation) => {
    const response = await post(accepting.write.key, jsonWith(fields));
    const { status, body } = await answer(response);
    expect({ status, code: body.code }).toEqual({ status: 400, code: "invalid_argument" });
    expect(body.message).toContain(violation);
  });

  it("accepts a body of exactly 1 MiB", async () => {
    const { status, body } = await answer(await post(accepting.write.key, padded(1024 * 1024)));
    expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
  });

  it.each<[string, () => NonNullable<RequestInit["body"]>, RequestInit]>([
    ["1 MiB + 1 byte", () => padded(1024 * 1024 + 1), {}],
    ["8 MiB", () => padded(8 * 1024 * 1024), {}],
    [
      "2 MiB sent chunked, without content-length",
      () => {
        const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
        let sent = 0;
        return new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent === 0) controller.enqueue(new TextEncoder().encode(VALID_JSON));
            if (sent >= 32) return controller.close();
            sent++;
            controller.enqueue(chunk);
          },
        });
      },
      { duplex: "half" } as RequestInit,
    ],
  ])("answers resource_exhausted, not 500, for a body of %s", async (_, body, init) => {
    const { status, body: error } = await answer(await post(rejecting.write.key, body(), init));
    expect(error.code).toBe("resource_exhausted");
    expect(status).not.toBe(500);
  });
});

describe("ListMonitors", () => {
  let listing: WorkspaceKeys;
  beforeAll(async () => {
    listing = await api.workspace();
    const client = api.client(listing.write.key);
    await client.createHTTPMonitor({ monitor: VALID_HTTP });
    await client.createTCPMonitor({ monitor: VALID_TCP });
  });
  const count = (r: { httpMonitors: unknown[]; tcpMonitors: unknown[]; dnsMonitors: unknown[] }) =>
    r.httpMonitors.length + r.tcpMonitors.length + r.dnsMonitors.length;

  it.each<[string, { limit?: number; offset?: number }, number]>([
    ["limit 1", { limit: 1 }, 1],
    ["limit 100", { limit: 100 }, 2],
    ["offset 0", { offset: 0 }, 2],
    ["offset past the end", { offset: 5 }, 0],
  ])("accepts %s", async (_, page, returned) => {
    const response = await api.client(listing.read.key).listMonitors(page);
    expect({ returned: count(response), totalSize: response.totalSize }).toEqual({ returned, totalSize: 2 });
  });

  it.each<[string, { limit?: number; offset?: number }, string, string]>([
    ["limit 0", { limit: 0 }, "limit", "must be an integer from 1 to 100"],
    ["limit 101", { limit: 101 }, "limit", "must be an integer from 1 to 100"],
    ["limit -1", { limit: -1 }, "limit", "must be an integer from 1 to 100"],
    ["offset -1", { offset: -1 }, "offset", "must be an integer from 0"],
  ])("rejects %s", async (_, page, field, rule) => {
    await expectInvalid(api.client(listing.read.key).listMonitors(page), field, rule);
  });
});

describe("no partial write", () => {
  it.each<[string, Patch<HttpInit>, string, string]>([
    ["a valid name with an out-of-range timeout", { name: "renamed", timeout: 120_001n }, "monitor.timeout", "must be an integer from 0 to 120000"],
    ["a valid name with a non-http url", { name: "renamed", url: "ftp://example.com" }, "monitor.url", "must be an absolute http:// or https:// URL"],
    ["a valid name with 21 headers", { name: "renamed", headers: headers(21) }, "monitor.headers", "must have at most 20 entries"],
    ["a valid name with certificateExpiryDays 3651", { name: "renamed", certificateExpiryDays: 3651n }, "monitor.certificateExpiryDays", "must be an integer from 0 to 3650"],
    ["a valid name with periodicity 99", { name: "renamed", periodicity: unknown<Periodicity>(99) }, "monitor.periodicity", "must be one of"],
    [
      "a valid JSON body assertion beside one that does not parse",
      { name: "renamed", jsonBodyAssertions: [{ path: "$.ok", comparator: JsonComparator.EXISTS }, { path: "$.[", comparator: JsonComparator.EXISTS }] },
      "monitor.jsonBodyAssertions[1].path",
      "must be a JSONPath query (RFC 9535)",
    ],
  ])("a rejected update (%s) leaves the stored monitor unchanged", async (_, patch, field, rule) => {
    const client = acceptingClient();
    const { monitor: created } = await client.createHTTPMonitor({ monitor: { ...VALID_HTTP, headers: headers(2), timeout: 1000n } });
    const before = await client.getMonitor({ id: created!.id });
    await expectInvalid(client.updateHTTPMonitor({ id: created!.id, monitor: withPatch<HttpInit>({}, patch) }), field, rule);
    const after = await client.getMonitor({ id: created!.id });
    expect(after).toEqual(before);
    expect((after.monitor?.config.value as HTTPMonitor).name).toBe(VALID_HTTP.name);
  });

  // Declared last: every rejected create above went to the `rejecting` workspace.
  it("no rejected create above left a monitor behind", async () => {
    const { totalSize } = await api.client(rejecting.read.key).listMonitors({});
    expect(rejectingTotalBefore).toBe(1);
    expect(totalSize).toBe(rejectingTotalBefore);
  });
});
