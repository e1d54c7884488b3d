import { ScalarType, type DescField, type DescMessage, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import fc from "fast-check";
import { IncidentService, MaintenanceService, MonitorService } from "@vigil/proto";
import { NotificationService } from "@vigil/proto/notification";
import { StatusPageService } from "@vigil/proto/status-page";
import { recordingLogger } from "../../../test/recording-logger";
import { startTestApi, transportTo, type Protocol, type TestApi, type WorkspaceKeys } from "./support/api";
import { createPage } from "./support/page-access";
import { rawRpc, type RawAnswer } from "./support/raw-rpc";

/**
 * Malformed requests to every endpoint, in every encoding the server takes:
 * none may fail the server (5xx, an internal or unknown gRPC status), end it,
 * or write anything. Seeded, so that every run sends the same requests.
 */

const SERVICES: DescService[] = [MonitorService, IncidentService, MaintenanceService, NotificationService, StatusPageService];
const RPC_PATHS = SERVICES.flatMap((service) => service.methods.map((method) => `/${service.typeName}/${method.name}`));
const CONTENT_TYPES = [
  "application/json",
  "application/proto",
  "application/connect+json",
  "application/connect+proto",
  "application/grpc",
  "application/grpc+proto",
  "application/grpc+json",
  "application/grpc-web",
  "application/grpc-web+proto",
  "application/grpc-web+json",
  "application/grpc-web-text",
  "text/plain",
  "",
];
/** gRPC proper needs HTTP/2 (its status is in trailers); everything else is sent over both versions. */
const needsHttp2 = (contentType: string) => /^application\/grpc(\+|$)/.test(contentType);
/** gRPC statuses that mean the server failed: unknown, internal, unavailable, data loss. */
const SERVER_FAILURES = new Set(["2", "13", "14", "15"]);
/**
 * The one 5xx the protocols prescribe for a client's request: a compression
 * the server does not know is unimplemented, which Connect answers 501.
 */
const UNKNOWN_COMPRESSION = /"message":"unknown compression /;
const RPC_RUNS = 2_400;
const HTTP_RUNS = 800;

/** A body that is not a valid request: random bytes, cut or broken protobuf, broken or mistaken JSON, bad envelopes. */
const malformedBody = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  // A length-delimited field claiming more bytes than follow.
  fc.tuple(fc.integer({ min: 1, max: 15 }), fc.uint8Array({ maxLength: 20 })).map(([field, rest]) => Uint8Array.from([(field << 3) | 2, rest.length + 5, ...rest])),
  // Wire types 6 and 7 do not exist; a varint that never ends.
  fc.integer({ min: 1, max: 15 }).map((field) => Uint8Array.from([(field << 3) | 7, 1, 2])),
  fc.constant(Uint8Array.from([0x08, 0xff, 0xff, 0xff])),
  fc.json().map((json) => Buffer.from(json)),
  fc.string().map((text) => Buffer.from(`{"${text}`)),
  fc.dictionary(fc.constantFrom("id", "monitor", "name", "limit", "offset", "updateMask", "statusPage", "notification", "regions"), fc.anything()).map((o) => Buffer.from(JSON.stringify(o) ?? "")),
  // An envelope (flags, length) around any of the above, with a length that may lie.
  fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.uint8Array({ maxLength: 64 })).map(([flags, length, payload]) => {
    const head = Buffer.alloc(5);
    head.writeUInt8(flags, 0);
    head.writeUInt32BE(length, 1);
    return Buffer.concat([head, payload]);
  }),
);

/** Extra headers that protocols read: versions, timeouts, compression, all possibly wrong. */
const protocolHeaders = fc.record(
  {
    "connect-protocol-version": fc.constantFrom("1", "2", "x"),
    "connect-timeout-ms": fc.constantFrom("0", "-1", "99999999999", "abc"),
    "grpc-timeout": fc.constantFrom("1S", "xyz", "100000000H", "0m"),
    "content-encoding": fc.constantFrom("gzip", "br", "identity", "zz"),
    "connect-content-encoding": fc.constantFrom("gzip", "zz"),
    "grpc-encoding": fc.constantFrom("gzip", "zz"),
    te: fc.constant("trailers"),
  },
  { requiredKeys: [] },
);

/**
 * Text no field may hold, or no name may: U+0000, control characters, noncharacters, an unpaired
 * surrogate (a client's encoder sends U+FFFD for it), and lengths past every field's limit.
 */
const hostileText = fc.oneof(
  fc.constantFrom("\u0000", "a\u0000b", "\u0001\u0007\u001b[31m", "line\r\nbreak", "tab\t", "\u007f\u0085", "\ufffe\uffff", "a\ud800b", "\u2028\u202e"),
  fc.constantFrom(257, 1_025, 2_049, 8_193, 65_537).map((n) => "x".repeat(n)),
  fc.string({ unit: "binary", maxLength: 40 }),
);
const RPC_TEXT_RUNS = 1_500;

/**
 * A request of `schema` with every field set, recursively, to values its rules take (text from
 * `textOf`), so that with one text made hostile it breaks that one rule only, and reaches the
 * database if that rule is missing.
 */
function requestOf(schema: DescMessage, textOf: (field: DescField) => fc.Arbitrary<string>, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  if (depth > 3) return fc.constant({});
  const valueOf = (field: DescField): fc.Arbitrary<unknown> => {
    const scalar = (type: ScalarType): fc.Arbitrary<unknown> => {
      switch (type) {
        case ScalarType.STRING:
          return textOf(field);
        case ScalarType.BOOL:
          return fc.boolean();
        case ScalarType.BYTES:
          return fc.uint8Array({ maxLength: 16 });
        case ScalarType.DOUBLE:
        case ScalarType.FLOAT:
          return fc.constantFrom(0, 1.5);
        case ScalarType.INT64:
        case ScalarType.SINT64:
        case ScalarType.SFIXED64:
        case ScalarType.UINT64:
        case ScalarType.FIXED64:
          return fc.constant(BigInt(saneNumber(field)));
        default:
          return fc.constant(saneNumber(field));
      }
    };
    const enumValue = (values: readonly { number: number }[]) => fc.constantFrom(...values.filter((v) => v.number !== 0).map((v) => v.number));
    switch (field.fieldKind) {
      case "scalar":
        return scalar(field.scalar);
      case "enum":
        return enumValue(field.enum.values);
      case "message":
        return requestOf(field.message, textOf, depth + 1);
      case "list":
        return fc.array(field.listKind === "scalar" ? scalar(field.scalar) : field.listKind === "enum" ? enumValue(field.enum.values) : requestOf(field.message, textOf, depth + 1), { maxLength: 2 });
      case "map":
        return fc.constant({});
    }
  };
  const plain = Object.fromEntries(schema.fields.filter((f) => !f.oneof).map((f) => [f.localName, valueOf(f)]));
  const oneofs = Object.fromEntries(
    schema.oneofs.map((oneof) => [oneof.localName, fc.oneof(...oneof.fields.map((f) => valueOf(f).map((value) => ({ case: f.localName, value }))))]),
  );
  return fc.record({ ...plain, ...oneofs });
}

/** A number each numeric field's rule takes: a status code, a count of retries, a page's size, a timeout. */
const saneNumber = (field: DescField): number => ({ target: 200, retry: 1, limit: 10, offset: 0 })[field.localName] ?? 5_000;

/**
 * Sets the `which`-th text of a request (modulo their number; in the order a walk of the object
 * meets them) to `value`, so that a request that broke no rule breaks one: where that rule is
 * missing, the text reaches the database.
 */
function withOneTextReplaced(request: Record<string, unknown>, which: number, value: string): void {
  const slots: { holder: Record<string, unknown>; key: string }[] = [];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== "object" || node instanceof Uint8Array) return;
    for (const [key, child] of Object.entries(node)) {
      // A oneof's `case` names its field: not text of the request.
      if (typeof child === "string" && key !== "case") slots.push({ holder: node as Record<string, unknown>, key });
      else walk(child);
    }
  };
  walk(request);
  const slot = slots[which % Math.max(slots.length, 1)];
  if (slot) slot.holder[slot.key] = value;
}

describe("fuzzing every endpoint with malformed requests", () => {
  let api: TestApi;
  let keys: WorkspaceKeys;
  let raw: ReturnType<typeof rawRpc>;
  const { logger, lines } = recordingLogger();

  beforeAll(async () => {
    // Limits high enough that the fuzz reaches the endpoints instead of the rate limits.
    const many = 1_000_000;
    api = await startTestApi("pglite", { logger, limits: { rateLimits: { apiCallsPerKeyPerSecond: many, apiCallsPerAddressPerSecond: many, pageViewsPerAddressPerMinute: many } } });
    keys = await api.workspace();
    await createPage(api.db.prisma, keys.slug, { accessType: "public", customDomain: "status.fuzz.test" });
    await createPage(api.db.prisma, keys.slug, { accessType: "password", password: "right password" });
    raw = rawRpc(api.baseUrl);
  });
  afterAll(async () => {
    raw.close();
    await api.close();
  });

  /** How many rows each table holds. */
  const rowCounts = async (): Promise<Record<string, number>> => {
    const tables = await api.db.prisma.$queryRaw<{ name: string }[]>`
      SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
    const counts: Record<string, number> = {};
    for (const { name } of tables) {
      const [row] = await api.db.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${name}"`);
      counts[name] = Number(row?.n ?? 0);
    }
    return counts;
  };

  const expectNoServerFailure = (answer: RawAnswer, what: string) => {
    const prescribed = answer.status === 501 && UNKNOWN_COMPRESSION.test(answer.body);
    if ((answer.status >= 500 && !prescribed) || (answer.grpcStatus !== undefined && SERVER_FAILURES.has(answer.grpcStatus))) {
      throw new Error(`${what} answered ${answer.status}, grpc-status ${answer.grpcStatus}: ${answer.body.slice(0, 200)}`);
    }
  };

  it("answers a body that is no protobuf message, or no gzip, invalid_argument naming the problem", async () => {
    const cut = Uint8Array.from([0x0a, 0x05, 0x61]);
    const headers = { "x-service-key": keys.write.key };
    const proto = await raw.overHttp1("POST", "/monitor.v1.MonitorService/CreateHTTPMonitor", { ...headers, "content-type": "application/proto" }, cut);
    expect(proto.status).toBe(400);
    expect(JSON.parse(proto.body)).toEqual({ code: "invalid_argument", message: "parse binary: premature EOF" });

    const envelope = Buffer.concat([Buffer.from([0, 0, 0, 0, cut.length]), cut]);
    const grpc = await raw.overHttp2("POST", "/monitor.v1.MonitorService/CreateHTTPMonitor", { ...headers, "content-type": "application/grpc", te: "trailers" }, envelope);
    expect(grpc.grpcStatus).toBe("3");

    const gzip = await raw.overHttp1("POST", "/monitor.v1.MonitorService/ListMonitors", { ...headers, "content-type": "application/json", "content-encoding": "gzip" }, Buffer.from("{}"));
    expect(gzip.status).toBe(400);
    expect(JSON.parse(gzip.body).code).toBe("invalid_argument");
  });

  it("answers every RPC with hostile text in every text field, over every protocol, without failing or logging an error", async () => {
    // Real ids, so that updates and deletes reach their rules; loopback URLs only, never a real host.
    const page = await createPage(api.db.prisma, keys.slug, { accessType: "public" });
    const monitor = (await api.client(keys.write.key).createHTTPMonitor({ monitor: { name: "m", url: "http://127.0.0.1:9/", periodicity: 2 } })).monitor!;
    const component = await api.db.prisma.statusPageComponent.create({ data: { pageId: page.id, type: "static", name: "c" } });
    const group = await api.db.prisma.statusPageComponentGroup.create({ data: { pageId: page.id, name: "g" } });
    const url = "http://127.0.0.1:9/";
    const taken: Record<string, fc.Arbitrary<string>> = {
      id: fc.constantFrom(page.id, monitor.id, component.id, group.id),
      pageId: fc.constant(page.id),
      monitorId: fc.constant(monitor.id),
      monitorIds: fc.constant(monitor.id),
      groupId: fc.constantFrom("", group.id),
      url: fc.constant(url),
      endpoint: fc.constantFrom("", url),
      webhookUrl: fc.constant(url),
      serverUrl: fc.constantFrom("", url),
      homepageUrl: fc.constantFrom("", url),
      contactUrl: fc.constantFrom("", url),
      icon: fc.constantFrom("", url),
      customDomain: fc.constant(""),
      accessType: fc.constant("public"),
      uri: fc.constantFrom("127.0.0.1:9", "example.test"),
      email: fc.constant("someone@example.test"),
      phoneNumber: fc.constant("+15558675310"),
      record: fc.constant("A"),
      type: fc.constantFrom("static", "monitor"),
      providerType: fc.constant(""),
      region: fc.constant("eu"),
      topic: fc.constant("alerts"),
      externalId: fc.constantFrom("", "ext-1"),
      slug: fc.constantFrom("fuzz-a", "fuzz-b"),
      key: fc.constantFrom("x-a", "x-b"),
      paths: fc.constantFrom("name", "description"),
    };
    // Loopback URLs only: a channel made here may be sent a test notification.
    const textOf = (field: DescField) => taken[field.localName] ?? fc.constant("name");
    const methods = SERVICES.flatMap((service) => service.methods.map((method) => ({ service, method })));
    lines.splice(0);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...methods).chain(({ service, method }) => fc.tuple(fc.constant({ service, method }), requestOf(method.input, textOf))),
        fc.nat(),
        hostileText,
        fc.constantFrom<Protocol>("connect", "grpc-web", "grpc"),
        async ([{ service, method }, request], which, hostile, protocol) => {
          withOneTextReplaced(request, which, hostile);
          const client = createClient(service, transportTo(api.baseUrl, keys.write.key, protocol)) as unknown as Record<string, (req: unknown) => unknown>;
          try {
            const answer = client[method.localName]!(request);
            // A watch answers at once and stays open: its first message is its answer.
            if (method.methodKind === "server_streaming") for await (const _ of answer as AsyncIterable<unknown>) break;
            else await answer;
          } catch (error) {
            const code = ConnectError.from(error).code;
            if ([Code.Internal, Code.Unknown, Code.Unavailable, Code.DataLoss].includes(code)) {
              throw new Error(`${service.typeName}/${method.name} over ${protocol} answered ${Code[code]}: ${ConnectError.from(error).rawMessage}`);
            }
          }
        },
      ),
      { numRuns: RPC_TEXT_RUNS, seed: 56, endOnFailure: true },
    );
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
    expect((await api.fetch("/healthz")).status).toBe(200);
  }, 300_000);

  const anyKey = () => fc.constantFrom<string | undefined>(keys.write.key, keys.read.key, keys.legacy.key, undefined, "vgl_not_a_key", "\u00ff\u00fe");

  it("answers every malformed RPC in every content type without failing or writing", async () => {
    const before = await rowCounts();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...RPC_PATHS), fc.constantFrom(...CONTENT_TYPES), malformedBody, anyKey(), protocolHeaders, fc.boolean(), async (path, contentType, body, key, extra, http2First) => {
        const headers: Record<string, string> = { ...extra, ...(contentType && { "content-type": contentType }), ...(key !== undefined && { "x-service-key": key }) };
        const send = needsHttp2(contentType) || http2First ? raw.overHttp2 : raw.overHttp1;
        expectNoServerFailure(await send("POST", path, headers, body), `POST ${path} (${contentType})`);
      }),
      { numRuns: RPC_RUNS, seed: 12, endOnFailure: true },
    );
    expect(await rowCounts()).toEqual(before);
    expect((await api.fetch("/healthz")).status).toBe(200);
  }, 120_000);

  it("answers every malformed request to the plain HTTP routes and the public pages without failing or writing", async () => {
    const before = await rowCounts();
    const segment = fc.oneof(fc.constantFrom("acme-1", "acme-2", "nope", "%", "%zz", "..", "a".repeat(300)), fc.string({ maxLength: 20 }).map(encodeURIComponent));
    const path = fc.oneof(
      fc.constantFrom("/v1/whoami", "/healthz", "/", "/summary.json", "/badge.svg", "/feed.atom", "/sign-in", "/metrics"),
      segment.map((id) => `/v1/api-key/${id}`),
      fc.tuple(segment, fc.constantFrom("", "/summary.json", "/badge.svg", "/feed.atom", "/sign-in", "/sign-in/token")).map(([slug, rest]) => `/status/${slug}${rest}`),
      fc.tuple(segment, fc.constantFrom("", "?a=%", "?x")).map(([token, query]) => `/sign-in/${token}${query}`),
    );
    const headers = fc.record(
      {
        host: fc.constantFrom("status.fuzz.test", "STATUS.FUZZ.TEST.", "[::1", "a..b", "x:99999"),
        "content-type": fc.constantFrom("application/x-www-form-urlencoded", "application/json", "multipart/form-data; boundary=x", "text/plain"),
        cookie: fc.string({ maxLength: 80 }).map((value) => `vigil_page_x=${encodeURIComponent(value)}`),
        "if-none-match": fc.constantFrom("*", '"abc"', "W/", ""),
        "accept-encoding": fc.constantFrom("gzip;q=0", "*", "br", ""),
        origin: fc.constantFrom("null", "http://evil.test", "not a url"),
        "x-forwarded-proto": fc.constantFrom("https", "ftp, https"),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"), path, headers, anyKey(), malformedBody, fc.boolean(), async (method, p, h, key, body, overH2) => {
        const all: Record<string, string> = { ...h, ...(key !== undefined && { "x-service-key": key }) };
        if (overH2 && all.host) {
          all[":authority"] = all.host;
          delete all.host;
        }
        expectNoServerFailure(await (overH2 ? raw.overHttp2 : raw.overHttp1)(method, p, all, body), `${method} ${p}`);
      }),
      { numRuns: HTTP_RUNS, seed: 34, endOnFailure: true },
    );
    expect(await rowCounts()).toEqual(before);
    expect((await api.fetch("/healthz")).status).toBe(200);
  }, 120_000);
});
