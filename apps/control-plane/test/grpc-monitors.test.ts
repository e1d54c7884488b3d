/**
 * gRPC health-check monitors through the public RPC API: create, get, list, overviews, update (with and without a
 * mask), the field rules (refused whole, nothing written), read keys' redacted metadata, and the address guard,
 * on both database backends.
 */
import { Code } from "@connectrpc/connect";
import { Periodicity, Region, type GRPCMonitorSchema } from "@vigil/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { expectRefused } from "./support/codes";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";

type GrpcInit = MessageInitShape<typeof GRPCMonitorSchema>;
const periodicity = Periodicity.PERIODICITY_1M;
const VALID: GrpcInit = { name: "orders", uri: "orders.example.com:443", periodicity };

describe.each(BACKENDS)("gRPC monitors (%s)", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  const write = () => api.client(ws.write.key);

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
  });
  afterAll(() => api.close());

  test("a create fills in the defaults: plaintext, the whole server, SERVING expected", async () => {
    const { monitor } = await write().createGRPCMonitor({ monitor: VALID });
    expect(monitor).toMatchObject({
      name: "orders",
      uri: "orders.example.com:443",
      service: "",
      tls: false,
      headers: [],
      expectedStatus: "SERVING",
      certificateExpiryDays: 14n,
      timeout: 45_000n,
      retry: 3n,
      degradedAt: 22_500n,
      active: false,
      public: false,
      alertQuorum: "",
      confirmations: 1n,
      recoveryConfirmations: 1n,
      externalId: "",
    });
  });

  test("every field is kept; GetMonitor answers the case grpc, ListMonitors grpcMonitors, overviews the kind grpc", async () => {
    const own = await api.workspace();
    const client = api.client(own.write.key);
    const { monitor } = await client.createGRPCMonitor({
      monitor: {
        ...VALID,
        service: "orders.v1.OrderService",
        tls: true,
        headers: [{ key: "authorization", value: "Bearer s3cret" }, { key: "x-tenant", value: "acme" }],
        expectedStatus: "NOT_SERVING",
        certificateExpiryDays: 30n,
        timeout: 5_000n,
        retry: 1n,
        degradedAt: 800n,
        regions: [Region.HOSTA_AMS, Region.HOSTA_FRA],
        active: true,
        public: true,
        description: "order service health",
        openTelemetry: { endpoint: "https://otel.example.com/v1/metrics", headers: [] },
        alertQuorum: "2",
        confirmations: 2n,
        recoveryConfirmations: 3n,
        externalId: "grpc/orders",
      },
    });
    expect(monitor).toMatchObject({
      service: "orders.v1.OrderService",
      tls: true,
      headers: [{ key: "authorization", value: "Bearer s3cret" }, { key: "x-tenant", value: "acme" }],
      expectedStatus: "NOT_SERVING",
      certificateExpiryDays: 30n,
      degradedAt: 800n,
      regions: [Region.HOSTA_AMS, Region.HOSTA_FRA],
      alertQuorum: "2",
      confirmations: 2n,
      recoveryConfirmations: 3n,
      externalId: "grpc/orders",
    });
    await client.createTCPMonitor({ monitor: { name: "port", uri: "example.com:5432", periodicity } });
    const got = await client.getMonitor({ id: monitor!.id });
    expect(got.monitor!.config.case).toBe("grpc");
    expect(got.monitor!.config.value).toEqual(monitor);
    const listed = await client.listMonitors({});
    expect(listed.totalSize).toBe(2);
    expect(listed.grpcMonitors).toEqual([monitor]);
    expect(listed.tcpMonitors.map((m) => m.name)).toEqual(["port"]);
    const overviews = await client.listMonitorOverviews({});
    expect(overviews.monitors.map((m) => [m.name, m.kind, m.target, m.periodicity])).toEqual([
      ["orders", "grpc", "orders.example.com:443", periodicity],
      ["port", "tcp", "example.com:5432", periodicity],
    ]);
  });

  test("a read key sees metadata values as fingerprints; sending them back keeps the stored ones", async () => {
    const { monitor } = await write().createGRPCMonitor({ monitor: { ...VALID, headers: [{ key: "authorization", value: "Bearer s3cret" }] } });
    const read = api.client(ws.read.key);
    const got = (await read.getMonitor({ id: monitor!.id })).monitor!.config.value as typeof monitor;
    expect(got!.headers[0]!.value).not.toContain("s3cret");
    await write().updateGRPCMonitor({ id: monitor!.id, monitor: { headers: got!.headers, name: "renamed" } });
    const after = (await write().getMonitor({ id: monitor!.id })).monitor!.config.value as typeof monitor;
    expect(after!.headers).toEqual([{ $typeName: "monitor.v1.Header", key: "authorization", value: "Bearer s3cret" }]);
  });

  test("a partial update changes what it carries; a mask resets what it names and does not carry", async () => {
    const { monitor } = await write().createGRPCMonitor({
      monitor: { ...VALID, service: "a.B", tls: true, expectedStatus: "UNKNOWN", headers: [{ key: "x-a", value: "1" }] },
    });
    const id = monitor!.id;
    const changed = await write().updateGRPCMonitor({ id, monitor: { service: "c.D", active: true } });
    expect(changed.monitor).toMatchObject({ service: "c.D", active: true, tls: true, expectedStatus: "UNKNOWN", headers: [{ key: "x-a", value: "1" }] });
    const reset = await write().updateGRPCMonitor({ id, monitor: {}, updateMask: { paths: ["service", "tls", "expected_status", "headers"] } });
    expect(reset.monitor).toMatchObject({ service: "", tls: false, expectedStatus: "SERVING", headers: [], active: true, name: "orders" });
  });

  test("another kind's update method is refused, naming the one to use", async () => {
    const { monitor } = await write().createGRPCMonitor({ monitor: VALID });
    const snapshot = () => write().getMonitor({ id: monitor!.id });
    await expectRefused(snapshot, () => write().updateTCPMonitor({ id: monitor!.id, monitor: { name: "x" } }), Code.InvalidArgument, "id: names a GRPC monitor; update it with UpdateGRPCMonitor");
  });

  test.each<[string, GrpcInit, string]>([
    ["a uri without a port", { uri: "orders.example.com" }, "monitor.uri: must be host:port"],
    ["a URL for a uri", { uri: "https://orders.example.com:443" }, "monitor.uri: must be host:port"],
    ["an expected status grpc.health.v1 does not have", { expectedStatus: "HEALTHY" }, "monitor.expectedStatus: must be one of SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN"],
    ["a service name with a line break", { service: "a.B\nx" }, "monitor.service: must not contain control characters"],
    ["a service name too long", { service: "s".repeat(513) }, "monitor.service: must be at most 512 characters"],
    ["reserved metadata", { headers: [{ key: "grpc-timeout", value: "1S" }] }, "monitor.headers[0].key: must not be a name gRPC or HTTP/2 reserves"],
    ["metadata that is not a header name", { headers: [{ key: "bad name", value: "1" }] }, "monitor.headers[0].key: must be a valid HTTP header name"],
    ["21 metadata entries", { headers: Array.from({ length: 21 }, (_, i) => ({ key: `x-${i}`, value: "1" })) }, "monitor.headers: must have at most 20 entries"],
    ["a certificate warning beyond ten years", { certificateExpiryDays: 3651n }, "monitor.certificateExpiryDays: must be an integer from 0 to 3650"],
    ["a quorum above its regions", { regions: [Region.HOSTA_AMS], alertQuorum: "2" }, "monitor.alertQuorum: must be at most the number of the monitor's regions (1), not 2"],
    ["zero confirmations", { confirmations: 0n }, "monitor.confirmations: must be an integer from 1 to 10"],
  ])("refuses %s, naming the field and writing nothing", async (_, patch, message) => {
    const snapshot = () => write().listMonitors({ limit: 100 });
    await expectRefused(snapshot, () => write().createGRPCMonitor({ monitor: { ...VALID, ...patch } as GrpcInit }), Code.InvalidArgument, message);
    const { monitor } = await write().createGRPCMonitor({ monitor: VALID });
    const get = () => write().getMonitor({ id: monitor!.id });
    await expectRefused(get, () => write().updateGRPCMonitor({ id: monitor!.id, monitor: patch }), Code.InvalidArgument, message);
  });

  test("a create without name or periodicity is refused", async () => {
    const snapshot = () => write().listMonitors({ limit: 100 });
    await expectRefused(snapshot, () => write().createGRPCMonitor({ monitor: { uri: "a.example.com:50051", periodicity } }), Code.InvalidArgument, "monitor.name");
    await expectRefused(snapshot, () => write().createGRPCMonitor({ monitor: { name: "n", uri: "a.example.com:50051" } }), Code.InvalidArgument, "monitor.periodicity");
    await expectRefused(snapshot, () => write().createGRPCMonitor({}), Code.InvalidArgument, "monitor: is required");
  });

  test("the expected status is a string over the JSON protocol; a number is refused naming the field", async () => {
    const post = (monitor: object) =>
      api.fetch("/monitor.v1.MonitorService/CreateGRPCMonitor", {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-key": ws.write.key },
        body: JSON.stringify({ monitor }),
      });
    const ok = await post({ name: "j", uri: "j.example.com:50051", periodicity: "PERIODICITY_1M", tls: true, expectedStatus: "SERVICE_UNKNOWN" });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { monitor: object }).monitor).toMatchObject({ tls: true, expectedStatus: "SERVICE_UNKNOWN", uri: "j.example.com:50051" });
    const bad = await post({ name: "j", uri: "j.example.com:50051", periodicity: "PERIODICITY_1M", tls: "yes" });
    const body = (await bad.json()) as { code: string; message: string };
    expect([bad.status, body.code]).toEqual([400, "invalid_argument"]);
    expect(body.message).toMatch(/tls.*expected boolean/);
  });
});

describe("gRPC monitors and the address guard", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;

  beforeAll(async () => {
    api = await startTestApi("pglite", { providerEnv: { ALLOW_PRIVATE_TARGETS: "false", ALLOWED_TARGET_CIDRS: "" } });
    ws = await api.workspace();
  });
  afterAll(() => api.close());

  test("a uri at an address the deployment refuses is refused at save time, as a TCP monitor's is", async () => {
    const client = api.client(ws.write.key);
    const snapshot = () => client.listMonitors({});
    await expectRefused(
      snapshot,
      () => client.createGRPCMonitor({ monitor: { ...VALID, uri: "169.254.169.254:50051" } }),
      Code.InvalidArgument,
      "monitor.uri: refused: 169.254.169.254 is a link-local address",
    );
  });
});
