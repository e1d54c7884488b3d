import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { fromBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { createClient, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { MonitorService } from "@vigil/proto";
import { reflectionV1, reflectionV1alpha } from "@vigil/proto/grpc";
import { addServerReflection } from "../src/grpc/reflection";

// The buf CLI that packages/proto installs (the one the README tells users to run).
const BUF = resolve(__dirname, "../../../packages/proto/node_modules/.bin/buf");

type Request = MessageInitShape<typeof reflectionV1.ServerReflectionRequestSchema>;

let server: http2.Http2Server;
let baseUrl: string;
const sessions = new Set<http2.ServerHttp2Session>();

beforeAll(async () => {
  const routes = (router: ConnectRouter) => {
    addServerReflection(router, [MonitorService]);
    // One real method, so that buf curl can prove a call works with a schema learnt only from reflection.
    router.service(MonitorService, {
      getMonitor: (request) => ({ monitor: { config: { case: "http", value: { id: request.id, name: "from stub" } } } }),
    });
  };
  server = http2.createServer(connectNodeAdapter({ routes }));
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  // Connect's client transport keeps its HTTP/2 session open after the last
  // call, and server.close() waits for every session to end.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const session of sessions) session.close();
  await closed;
});

describe.each([
  ["v1", reflectionV1.ServerReflection],
  // Same message shapes under another package name; typed as v1 to share the helpers.
  ["v1alpha", reflectionV1alpha.ServerReflection as unknown as typeof reflectionV1.ServerReflection],
])("grpc.reflection.%s.ServerReflection", (version, service) => {
  // Sends every request on one stream, waiting for each answer before the
  // next request, the way grpcurl and buf curl converse.
  async function converse(...requests: Request[]) {
    const client = createClient(service, createGrpcTransport({ baseUrl }));
    let answered: () => void = () => {};
    async function* send() {
      for (const request of requests) {
        const next = new Promise<void>((resolve) => (answered = resolve));
        yield request;
        await next;
      }
    }
    const responses = [];
    for await (const response of client.serverReflectionInfo(send())) {
      responses.push(response);
      answered();
    }
    return responses;
  }

  const fileNames = (response: { messageResponse: { case: string | undefined; value?: unknown } }) => {
    expect(response.messageResponse.case).toBe("fileDescriptorResponse");
    const { fileDescriptorProto } = response.messageResponse.value as { fileDescriptorProto: Uint8Array[] };
    return fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes).name);
  };

  it("lists the given services and the reflection services", async () => {
    const [response] = await converse({ host: "h", messageRequest: { case: "listServices", value: "" } });
    expect(response?.validHost).toBe("h");
    expect(response?.originalRequest?.messageRequest.case).toBe("listServices");
    expect(response?.messageResponse.case).toBe("listServicesResponse");
    const names = response?.messageResponse.case === "listServicesResponse" ? response.messageResponse.value.service.map((s) => s.name) : [];
    expect(names).toEqual(
      expect.arrayContaining([
        "monitor.v1.MonitorService",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
      ]),
    );
  });

  it("answers several requests on one stream, with files and their transitive imports", async () => {
    const responses = await converse(
      { messageRequest: { case: "fileContainingSymbol", value: "monitor.v1.MonitorService" } },
      { messageRequest: { case: "fileContainingSymbol", value: "monitor.v1.MonitorService.CreateHTTPMonitor" } },
      { messageRequest: { case: "fileContainingSymbol", value: "monitor.v1.HTTPMonitor.name" } },
      { messageRequest: { case: "fileByFilename", value: "google/protobuf/timestamp.proto" } },
      { messageRequest: { case: "fileContainingSymbol", value: `grpc.reflection.${version}.ServerReflection` } },
    );
    expect(responses).toHaveLength(5);
    const [service, method, field, timestamp, reflection] = responses.map(fileNames);
    expect(service?.[0]).toBe("monitor/v1/service.proto");
    expect(service).toEqual(
      expect.arrayContaining(["google/protobuf/field_mask.proto", "google/protobuf/timestamp.proto", "monitor/v1/monitor.proto"]),
    );
    expect(method?.[0]).toBe("monitor/v1/service.proto");
    expect(field?.[0]).toBe("monitor/v1/monitor.proto");
    expect(timestamp).toEqual(["google/protobuf/timestamp.proto"]);
    expect(reflection?.[0]).toBe(`grpc/reflection/${version}/reflection.proto`);
  });

  it("answers unknown names with NOT_FOUND error responses and keeps the stream open", async () => {
    const responses = await converse(
      { messageRequest: { case: "fileContainingSymbol", value: "monitor.v1.NoSuchThing" } },
      { messageRequest: { case: "fileByFilename", value: "no/such.proto" } },
      { messageRequest: { case: "fileContainingExtension", value: { containingType: "monitor.v1.HTTPMonitor", extensionNumber: 1000 } } },
      { messageRequest: { case: "allExtensionNumbersOfType", value: "monitor.v1.HTTPMonitor" } },
    );
    expect(responses.slice(0, 3).map((r) => r.messageResponse)).toEqual([
      expect.objectContaining({ case: "errorResponse", value: expect.objectContaining({ errorCode: 5 }) }),
      expect.objectContaining({ case: "errorResponse", value: expect.objectContaining({ errorCode: 5 }) }),
      expect.objectContaining({ case: "errorResponse", value: expect.objectContaining({ errorCode: 5 }) }),
    ]);
    expect(responses[3]?.messageResponse).toEqual(
      expect.objectContaining({
        case: "allExtensionNumbersResponse",
        value: expect.objectContaining({ baseTypeName: "monitor.v1.HTTPMonitor", extensionNumber: [] }),
      }),
    );
  });
});

// buf curl is a real, independent reflection client, installed with packages/proto's dependencies.
describe("buf curl via reflection", () => {
  beforeAll(() => {
    if (!existsSync(BUF)) throw new Error(`buf is missing at ${BUF}; install the workspace with: bash scripts/setup.sh`);
  });

  const bufCurl = async (...args: string[]) =>
    (await promisify(execFile)(BUF, ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args], { timeout: 30_000 })).stdout;

  it.each(["grpc-v1", "grpc-v1alpha"])("lists MonitorService methods with %s", async (reflectProtocol) => {
    const out = await bufCurl("--reflect-protocol", reflectProtocol, "--list-methods", baseUrl);
    expect(out.split("\n")).toContain("monitor.v1.MonitorService/CreateHTTPMonitor");
  });

  it("calls a MonitorService method using only the reflected schema", async () => {
    const out = await bufCurl("--data", '{"id": "m-1"}', `${baseUrl}/monitor.v1.MonitorService/GetMonitor`);
    expect(JSON.parse(out)).toEqual({ monitor: { http: { id: "m-1", name: "from stub" } } });
  });
});
