/**
 * What the protocols must refuse in a request (issue 34): JSON that is not
 * valid UTF-8, numbers spelled in ways the protobuf JSON mapping does not
 * allow, a gRPC or gRPC-Web call without its request message, and a body the
 * server cannot read (issue 35). Raw
 * requests, as an attacker sends them, over every protocol and HTTP version
 * that reads them; a refused request writes nothing.
 */
import { brotliCompressSync, gzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { ListMonitorsRequestSchema } from "@vigil/proto";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { rawRpc, type RawAnswer } from "./support/raw-rpc";

/** "ok", or the code's name as Connect writes it (invalid_argument), and the message or the answer's JSON. */
interface Outcome {
  code: string;
  message: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  answer?: any;
}

type Send = (method: string, path: string, headers: Record<string, string>, body?: Uint8Array) => Promise<RawAnswer>;
type Call = (path: string, json: Uint8Array, headers?: Record<string, string>) => Promise<Outcome>;

const MONITORS = "/monitor.v1.MonitorService";
const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : Buffer.from(part))));
const codeName = (code: number) => (Code[code] ?? String(code)).replace(/(?<!^)[A-Z]/g, (c) => `_${c}`).toLowerCase();
const envelope = (payload: Uint8Array, flags = 0) => {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
};
/** The first message of an enveloped answer, as JSON. */
const firstMessage = (body: Buffer) => JSON.parse(body.subarray(5, 5 + body.readUInt32BE(1)).toString("utf8"));
/** Every byte that is not unreserved percent-encoded, so that the query carries the bytes as they are. */
const percentEncoded = (json: Uint8Array) => Array.from(json, (b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0")}`)).join("");

const BAD_UTF8: Record<string, number[]> = {
  "bytes that start no character": [0xff, 0xfe],
  "an overlong encoding of /": [0xc0, 0xaf],
  "an encoded surrogate": [0xed, 0xa0, 0x80],
  "a cut character": [0xe2, 0x82],
};

describe.each(BACKENDS)("requests the protocols must refuse (%s)", (backend) => {
  let api: TestApi;
  let key: string;
  let raw: ReturnType<typeof rawRpc>;
  beforeAll(async () => {
    api = await startTestApi(backend);
    key = (await api.workspace()).write.key;
    raw = rawRpc(api.baseUrl);
  });
  afterAll(async () => {
    raw.close();
    await api.close();
  });

  const connect =
    (send: Send): Call =>
    async (path, json, headers = {}) => {
      const answer = await send("POST", path, { "content-type": "application/json", "x-service-key": key, ...headers }, json);
      const parsed = JSON.parse(Buffer.from(answer.body, "latin1").toString("utf8"));
      return answer.status === 200 ? { code: "ok", message: "", answer: parsed } : { code: parsed.code, message: parsed.message };
    };
  const grpc =
    (send: Send, contentType: string): Call =>
    async (path, json) => {
      const answer = await send("POST", path, { "content-type": contentType, te: "trailers", "x-service-key": key }, envelope(json));
      if (answer.grpcStatus === "0") return { code: "ok", message: "", answer: firstMessage(Buffer.from(answer.body, "latin1")) };
      return { code: codeName(Number(answer.grpcStatus)), message: answer.grpcMessage ?? "" };
    };
  const connectGet =
    (base64: boolean): Call =>
    async (path, json) => {
      const message = base64 ? `base64=1&message=${Buffer.from(json).toString("base64url")}` : `message=${percentEncoded(json)}`;
      const answer = await raw.overHttp1("GET", `${path}?connect=v1&encoding=json&${message}`, { "x-service-key": key });
      const parsed = JSON.parse(Buffer.from(answer.body, "latin1").toString("utf8"));
      return answer.status === 200 ? { code: "ok", message: "", answer: parsed } : { code: parsed.code, message: parsed.message };
    };

  /** Every way a JSON request reaches the server. */
  const posts = (): Record<string, Call> => ({
    "Connect, HTTP/1.1": connect(raw.overHttp1),
    "Connect, h2c": connect(raw.overHttp2),
    "gRPC+JSON, h2c": grpc(raw.overHttp2, "application/grpc+json"),
    "gRPC-Web+JSON, HTTP/1.1": grpc(raw.overHttp1, "application/grpc-web+json"),
    "gRPC-Web+JSON, h2c": grpc(raw.overHttp2, "application/grpc-web+json"),
  });
  /** Methods free of side effects also take their JSON in the query of a Connect GET. */
  const reads = (): Record<string, Call> => ({ ...posts(), "Connect GET": connectGet(false), "Connect GET, base64": connectGet(true) });

  const monitorCount = async () => (await api.client(key).listMonitors({ limit: 100 })).totalSize;
  const httpMonitor = (fields: string) => bytes(`{"monitor":{"name":"m","url":"https://example.com","periodicity":"PERIODICITY_1M",${fields}}}`);

  it("refuses JSON that is not valid UTF-8, or holds a lone surrogate, over every protocol, and writes nothing", async () => {
    const before = await monitorCount();
    const outcomes: [string, string, Outcome][] = [];
    for (const [via, call] of Object.entries(posts())) {
      for (const [what, bad] of Object.entries(BAD_UTF8)) {
        const body = bytes('{"monitor":{"name":"', bad, '","url":"https://example.com","periodicity":"PERIODICITY_1M"}}');
        outcomes.push([via, what, await call(`${MONITORS}/CreateHTTPMonitor`, body)]);
      }
      for (const lone of ["\\ud800", "\\udc00x"]) outcomes.push([via, lone, await call(`${MONITORS}/CreateHTTPMonitor`, httpMonitor(`"description":"${lone}"`))]);
    }
    const gzipped = gzipSync(bytes('{"monitor":{"name":"', BAD_UTF8["bytes that start no character"]!, '","url":"https://example.com","periodicity":"PERIODICITY_1M"}}'));
    outcomes.push(["Connect, gzip", "bytes that start no character", await connect(raw.overHttp1)(`${MONITORS}/CreateHTTPMonitor`, gzipped, { "content-encoding": "gzip" })]);

    for (const [via, what, outcome] of outcomes) {
      expect({ via, what, code: outcome.code, message: outcome.message }).toEqual({ via, what, code: "invalid_argument", message: expect.stringMatching(/UTF-?8/) });
    }
    expect(await monitorCount()).toBe(before);
  });

  it("takes any valid UTF-8 and escaped surrogate pairs as they are written", async () => {
    for (const [via, call] of Object.entries(posts())) {
      const body = bytes('{"monitor":{"name":"ÿ ☃ 🐙 \\ud83d\\udc19 \\ufffd","url":"https://example.com","periodicity":"PERIODICITY_1M"}}');
      const outcome = await call(`${MONITORS}/CreateHTTPMonitor`, body);
      const { monitor } = await api.client(key).getMonitor({ id: outcome.answer.monitor.id });
      expect([via, monitor?.config.value?.name]).toEqual([via, "ÿ ☃ 🐙 🐙 \ufffd"]);
    }
  });

  it("refuses a Connect GET whose JSON is not valid UTF-8", async () => {
    const { monitor } = await api.client(key).createHTTPMonitor({ monitor: { name: "read", url: "https://example.com", periodicity: 1 } });
    for (const base64 of [false, true]) {
      const get = (json: Uint8Array) => connectGet(base64)(`${MONITORS}/GetMonitor`, json);
      expect([base64, (await get(bytes(`{"id":"${monitor!.id}"}`))).code]).toEqual([base64, "ok"]);
      const refused = await get(bytes('{"id":"', [0xff], '"}'));
      expect([base64, refused.code, refused.message]).toEqual([base64, "invalid_argument", expect.stringMatching(/UTF-?8/)]);
    }
  });

  it("takes 64-bit integers only as a JSON number or a string of decimal digits, and names the field it refuses", async () => {
    const before = await monitorCount();
    const refused = ['"0x10"', '" 16"', '"16 "', '"+16"', '"0b1"', '"0o20"', '"016"', '"1e3"', '"1.0"', '"\\u0030x10"', '""'];
    const outcomes: [string, string, Outcome][] = [];
    for (const [via, call] of Object.entries(posts())) {
      for (const spelling of refused) outcomes.push([via, `timeout ${spelling}`, await call(`${MONITORS}/CreateHTTPMonitor`, httpMonitor(`"timeout":${spelling}`))]);
      outcomes.push([via, "degraded_at", await call(`${MONITORS}/CreateHTTPMonitor`, httpMonitor(`"degraded_at":"0x10"`))]);
      const assertion = `"statusCodeAssertions":[{"target":"200","comparator":"NUMBER_COMPARATOR_EQUAL"},{"target":"0x1F4","comparator":"NUMBER_COMPARATOR_EQUAL"}]`;
      outcomes.push([via, "an assertion's target", await call(`${MONITORS}/CreateHTTPMonitor`, httpMonitor(assertion))]);
    }
    for (const [via, what, outcome] of outcomes) {
      const field = what === "degraded_at" ? "monitor.degraded_at" : what === "an assertion's target" ? "monitor.statusCodeAssertions[1].target" : "monitor.timeout";
      expect({ via, what, code: outcome.code, message: outcome.message }).toEqual({ via, what, code: "invalid_argument", message: expect.stringContaining(field) });
    }
    expect(await monitorCount()).toBe(before);

    const taken: [string, bigint][] = [
      ['"16"', 16n],
      ["16", 16n],
      ["1e3", 1000n],
      ['"-0"', 0n],
    ];
    for (const [via, call] of Object.entries(posts())) {
      for (const [spelling, value] of taken) {
        const outcome = await call(`${MONITORS}/CreateHTTPMonitor`, httpMonitor(`"timeout":${spelling}`));
        const { monitor } = await api.client(key).getMonitor({ id: outcome.answer.monitor.id });
        expect([via, spelling, monitor?.config.case === "http" && monitor.config.value.timeout]).toEqual([via, spelling, value]);
      }
    }
  });

  it("takes 32-bit integers only in JSON's number syntax, in a string or not, and names the field it refuses", async () => {
    const refused = ['"0x10"', '" 16"', '"16 "', '"+16"', '"0b1"', '"0o20"', '"016"', '"1."', '".5e1"', '"1e"', '"Infinity"'];
    const taken = ['"10"', "10", '"1e1"', '"10.0"', "1e1", '"\\u0031\\u0030"'];
    for (const [via, call] of Object.entries(reads())) {
      for (const spelling of refused) {
        const outcome = await call(`${MONITORS}/ListMonitors`, bytes(`{"limit":${spelling}}`));
        expect({ via, spelling, code: outcome.code, message: outcome.message }).toEqual({ via, spelling, code: "invalid_argument", message: expect.stringContaining("limit") });
      }
      for (const spelling of taken) expect([via, spelling, (await call(`${MONITORS}/ListMonitors`, bytes(`{"limit":${spelling}}`))).code]).toEqual([via, spelling, "ok"]);
    }
  });

  it("answers a body it cannot read invalid_argument over Connect, gRPC and gRPC-Web, and reads the same messages well formed", async () => {
    const message = toBinary(ListMonitorsRequestSchema, create(ListMonitorsRequestSchema, { limit: 5 }));
    const json = bytes('{"limit":5}');
    const cut = Uint8Array.from([0x0a, 0x05, 0x61]);
    const cutGzip = (bytes: Uint8Array) => gzipSync(bytes).subarray(0, -6);
    const cutBrotli = (bytes: Uint8Array) => brotliCompressSync(Buffer.concat([bytes, Buffer.alloc(64, 1)])).subarray(0, -2);
    /** What each protocol is sent, by name: a body and its headers. */
    const bodies = (binary: boolean, encodingHeader: string, enveloped: boolean) => {
      const good = binary ? message : json;
      const frame = (payload: Uint8Array, flags = 0) => (enveloped ? envelope(payload, flags) : payload);
      const compressed = enveloped ? 1 : 0;
      return {
        unreadable: {
          ...(binary && { "no protobuf message": { body: frame(cut), headers: {} } }),
          ...(binary && { "a second envelope that is no protobuf message": enveloped ? { body: Buffer.concat([envelope(good), envelope(cut)]), headers: {} } : undefined }),
          "no gzip": { body: frame(good, compressed), headers: { [encodingHeader]: "gzip" } },
          "a cut gzip stream": { body: frame(cutGzip(good), compressed), headers: { [encodingHeader]: "gzip" } },
          "a cut brotli stream": { body: frame(cutBrotli(good), compressed), headers: { [encodingHeader]: "br" } },
          ...(binary && { "gzip of no protobuf message": { body: frame(gzipSync(cut), compressed), headers: { [encodingHeader]: "gzip" } } }),
          ...(enveloped && { "a compressed envelope without its encoding": { body: envelope(gzipSync(good), 1), headers: {} } }),
        },
        readable: {
          plain: { body: frame(good), headers: {} },
          gzip: { body: frame(gzipSync(good), compressed), headers: { [encodingHeader]: "gzip" } },
          br: { body: frame(brotliCompressSync(good), compressed), headers: { [encodingHeader]: "br" } },
        },
      };
    };
    const protocols: [string, Send, string, string, boolean][] = [
      ["Connect, HTTP/1.1", raw.overHttp1, "application/proto", "content-encoding", false],
      ["Connect, h2c", raw.overHttp2, "application/proto", "content-encoding", false],
      ["Connect JSON, HTTP/1.1", raw.overHttp1, "application/json", "content-encoding", false],
      ["gRPC, h2c", raw.overHttp2, "application/grpc", "grpc-encoding", true],
      ["gRPC+JSON, h2c", raw.overHttp2, "application/grpc+json", "grpc-encoding", true],
      ["gRPC-Web, HTTP/1.1", raw.overHttp1, "application/grpc-web+proto", "grpc-encoding", true],
      ["gRPC-Web, h2c", raw.overHttp2, "application/grpc-web", "grpc-encoding", true],
      ["gRPC-Web+JSON, HTTP/1.1", raw.overHttp1, "application/grpc-web+json", "grpc-encoding", true],
    ];
    const outcomes: [string, string, string, string][] = [];
    const outcome = async (send: Send, contentType: string, body: Uint8Array, headers: Record<string, string>) => {
      const answer = await send("POST", `${MONITORS}/ListMonitors`, { "content-type": contentType, te: "trailers", "x-service-key": key, ...headers }, body);
      if (answer.grpcStatus !== undefined) return { code: answer.grpcStatus === "0" ? "ok" : codeName(Number(answer.grpcStatus)), message: answer.grpcMessage ?? "" };
      if (answer.status === 200) return { code: "ok", message: "" };
      const parsed = JSON.parse(Buffer.from(answer.body, "latin1").toString("utf8"));
      return { code: parsed.code, message: parsed.message };
    };
    for (const [via, send, contentType, encodingHeader, enveloped] of protocols) {
      const { unreadable, readable } = bodies(!/json/.test(contentType), encodingHeader, enveloped);
      for (const [what, sent] of Object.entries(unreadable)) {
        if (sent === undefined) continue;
        const { code, message } = await outcome(send, contentType, sent.body, sent.headers);
        outcomes.push([via, what, code, message]);
      }
      for (const [what, sent] of Object.entries(readable)) {
        expect([via, what, (await outcome(send, contentType, sent.body, sent.headers)).code]).toEqual([via, what, "ok"]);
      }
    }
    const get = async (query: string) => {
      const answer = await raw.overHttp1("GET", `${MONITORS}/ListMonitors?connect=v1&${query}`, { "x-service-key": key });
      if (answer.status === 200) return { code: "ok", message: "" };
      const parsed = JSON.parse(Buffer.from(answer.body, "latin1").toString("utf8"));
      return { code: parsed.code, message: parsed.message };
    };
    const base64 = (b: Uint8Array) => Buffer.from(b).toString("base64url");
    for (const [what, query] of Object.entries({
      "no protobuf message": `encoding=proto&base64=1&message=${base64(cut)}`,
      "no base64": "encoding=proto&base64=1&message=%21%21",
      "JSON in no base64": "encoding=json&base64=1&message=%21%21",
      "a cut gzip stream": `encoding=proto&base64=1&compression=gzip&message=${base64(cutGzip(message))}`,
      "gzip of no protobuf message": `encoding=proto&base64=1&compression=gzip&message=${base64(gzipSync(cut))}`,
    })) {
      const { code, message } = await get(query);
      outcomes.push(["Connect GET", what, code, message]);
    }
    expect((await get(`encoding=proto&base64=1&compression=gzip&message=${base64(gzipSync(message))}`)).code).toBe("ok");

    for (const [via, what, code, message] of outcomes) expect({ via, what, code, message }).toEqual({ via, what, code: "invalid_argument", message: expect.any(String) });
    const named = (what: string) => outcomes.filter(([, w]) => w === what).map(([, , , message]) => message);
    expect(new Set(named("no protobuf message"))).toEqual(new Set(["parse binary: premature EOF"]));
    expect(new Set(named("a compressed envelope without its encoding"))).toEqual(new Set(["the message is compressed, but grpc-encoding names no compression"]));
    expect(new Set(named("a cut gzip stream"))).toEqual(new Set(["decompression failed"]));
  });

  it("keeps an HTTP/1.1 connection whose body was refused before its end for the next requests", async () => {
    // A message that does not parse, then half a megabyte more: refused before the rest arrives.
    const refused = Buffer.concat([envelope(Uint8Array.from([0x0a, 0x05, 0x61])), envelope(Buffer.alloc(512 * 1024, 0x08))]);
    for (const contentType of ["application/grpc-web", "application/grpc-web+json"]) {
      for (let i = 0; i < 4; i++) {
        const answer = await raw.overHttp1("POST", `${MONITORS}/ListMonitors`, { "content-type": contentType, "x-service-key": key }, refused);
        expect([contentType, i, answer.status, answer.grpcStatus]).toEqual([contentType, i, 200, String(Code.InvalidArgument)]);
      }
    }
    const answer = await raw.overHttp1("POST", `${MONITORS}/ListMonitors`, { "content-type": "application/grpc-web", "x-service-key": key }, envelope(new Uint8Array(0)));
    expect(answer.grpcStatus).toBe("0");
  });

  it("answers a gRPC or gRPC-Web call without its request message invalid_argument, over every HTTP version and encoding", async () => {
    const empty = new Uint8Array(0);
    const calls: [string, Send, string][] = [
      ["gRPC, h2c", raw.overHttp2, "application/grpc"],
      ["gRPC+JSON, h2c", raw.overHttp2, "application/grpc+json"],
      ["gRPC-Web, HTTP/1.1", raw.overHttp1, "application/grpc-web"],
      ["gRPC-Web+JSON, HTTP/1.1", raw.overHttp1, "application/grpc-web+json"],
      ["gRPC-Web, h2c", raw.overHttp2, "application/grpc-web+proto"],
      ["gRPC-Web+JSON, h2c", raw.overHttp2, "application/grpc-web+json"],
    ];
    for (const [via, send, contentType] of calls) {
      const answer = await send("POST", `${MONITORS}/ListMonitors`, { "content-type": contentType, te: "trailers", "x-service-key": key }, empty);
      expect([via, answer.grpcStatus, answer.grpcMessage]).toEqual([via, String(Code.InvalidArgument), expect.stringContaining("no request message")]);
    }
    // Connect's unary protocol has no envelope: an empty body is the empty message.
    const connectEmpty = await raw.overHttp1("POST", `${MONITORS}/ListMonitors`, { "content-type": "application/proto", "x-service-key": key }, empty);
    expect(connectEmpty.status).toBe(200);
  });
});
