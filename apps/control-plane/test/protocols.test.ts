import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { MonitorService, Periodicity } from "@vigil/proto";
import { Health, HealthCheckResponse_ServingStatus } from "@vigil/proto/grpc";
import { jsonOf, startTestApi, type TestApi } from "./support/api";

/** One port serves Connect, gRPC and gRPC-Web over HTTP/1.1 and h2c. */
describe("protocols on one port", () => {
  let api: TestApi;
  let key: string;
  beforeAll(async () => {
    api = await startTestApi("pglite");
    key = (await api.workspace()).write.key;
  });
  afterAll(() => api.close());

  const header = { "x-service-key": "" };
  const transports = () => {
    header["x-service-key"] = key;
    const baseUrl = api.baseUrl;
    return {
      "connect http/1.1": createConnectTransport({ baseUrl, httpVersion: "1.1" }),
      "connect h2c": createConnectTransport({ baseUrl, httpVersion: "2" }),
      "grpc h2c": createGrpcTransport({ baseUrl }),
      "grpc-web http/1.1": createGrpcWebTransport({ baseUrl, httpVersion: "1.1" }),
      "grpc-web h2c": createGrpcWebTransport({ baseUrl, httpVersion: "2" }),
    };
  };

  it("creates and reads a monitor over every protocol and HTTP version", async () => {
    for (const [name, transport] of Object.entries(transports())) {
      const client = createClient(MonitorService, transport);
      const { monitor } = await client.createTCPMonitor(
        { monitor: { name, uri: "example.com:443", periodicity: Periodicity.PERIODICITY_1M } },
        { headers: header },
      );
      const got = await client.getMonitor({ id: monitor!.id }, { headers: header });
      expect([name, got.monitor?.config.value?.name]).toEqual([name, name]);
    }
  });

  it("serves the gRPC health protocol and a plain health endpoint", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: api.baseUrl }));
    expect((await health.check({})).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const res = await api.fetch("/healthz");
    expect(res.status).toBe(200);
    expect(await jsonOf(res)).toEqual({ status: "ok" });
  });

  it("serves side-effect-free methods over Connect GET as well", async () => {
    const message = encodeURIComponent(JSON.stringify({ limit: 1 }));
    const res = await api.fetch(`/monitor.v1.MonitorService/ListMonitors?connect=v1&encoding=json&message=${message}`, {
      headers: header,
    });
    expect(res.status).toBe(200);
    expect((await jsonOf(res)).totalSize).toBeGreaterThan(0);
  });

  it("answers unknown paths with a JSON 404", async () => {
    const res = await api.fetch("/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(await jsonOf(res)).toEqual({ code: "not_found", message: "no endpoint GET /v1/nothing-here" });
  });
});
