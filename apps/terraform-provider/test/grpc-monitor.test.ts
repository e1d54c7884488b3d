import { terraformTests } from "./support/terraform.js";

const monitor = (fields: string) => `
resource "service_grpc_monitor" "orders" {
${fields}
}
`;

const ORDERS = `
  name            = "Orders"
  uri             = "orders.example.com:443"
  periodicity     = "1m"
  service         = "orders.v1.Orders"
  tls             = true
  expected_status = "NOT_SERVING"
  regions         = ["hostA-ams"]
  headers {
    key   = "authorization"
    value = "Bearer t0ken"
  }`;

const MINIMAL = `
resource "service_grpc_monitor" "minimal" {
  name        = "Health"
  uri         = "health.example.com:50051"
  periodicity = "5m"
}
`;

const DATA_SOURCES = `
data "service_monitor" "orders" {
  id = service_grpc_monitor.orders.id
}

data "service_monitors" "all" {
  depends_on = [service_grpc_monitor.orders, service_grpc_monitor.minimal]
}
`;

const fx = terraformTests();
const getMonitor = (id: string) => fx.client().getMonitor({ id });

describe("service_grpc_monitor with terraform", () => {
  const tf = fx.folder();
  let id: string;
  const write = (fields: string) => tf.configure(monitor(fields) + MINIMAL + DATA_SOURCES);

  it("creates the monitor with the contract's defaults, the data sources read it, and a second plan shows no changes", async () => {
    await write(ORDERS);
    await tf.apply();
    const state = await tf.stateOf("service_grpc_monitor.orders");
    id = String(state?.id);
    const { monitor: created } = await getMonitor(id);
    expect(created?.config.case).toBe("grpc");
    expect(created?.config.value).toMatchObject({
      name: "Orders",
      uri: "orders.example.com:443",
      service: "orders.v1.Orders",
      tls: true,
      expectedStatus: "NOT_SERVING",
      certificateExpiryDays: 14n,
      headers: [{ key: "authorization", value: "Bearer t0ken" }],
    });
    expect(state).toMatchObject({ tls: true, expected_status: "NOT_SERVING", certificate_expiry_days: 14, timeout: 45000, status: "unknown" });
    const minimal = await tf.stateOf("service_grpc_monitor.minimal");
    expect(minimal).toMatchObject({ service: "", tls: false, expected_status: "SERVING", headers: [] });
    expect(await tf.stateOf("data.service_monitor.orders")).toMatchObject({ id, type: "grpc", name: "Orders", uri: "orders.example.com:443", url: null });
    const all = await tf.stateOf("data.service_monitors.all");
    // Terraform creates the two at once: either may be the older.
    expect(all?.monitors).toHaveLength(2);
    expect(all?.monitors).toEqual(
      expect.arrayContaining([
        { id, name: "Orders", type: "grpc" },
        { id: String(minimal?.id), name: "Health", type: "grpc" },
      ]),
    );
    await tf.plan(0);
  });

  it("updates in place, keeping the id", async () => {
    await write(ORDERS.replace('"NOT_SERVING"', '"SERVING"').replace("tls             = true", "tls             = false"));
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("will be updated in-place");
    await tf.apply();
    expect((await tf.stateOf("service_grpc_monitor.orders"))?.id).toBe(id);
    expect((await getMonitor(id)).monitor?.config.value).toMatchObject({ expectedStatus: "SERVING", tls: false, service: "orders.v1.Orders" });
    await tf.plan(0);
  });

  it("shows a field changed outside Terraform as drift, and puts it back", async () => {
    await fx.client().updateGRPCMonitor({ id, monitor: { service: "other.v1.Other" }, updateMask: { paths: ["service"] } });
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/~ service\s+= "other\.v1\.Other" -> "orders\.v1\.Orders"/);
    await tf.apply();
    expect((await getMonitor(id)).monitor?.config.value).toMatchObject({ service: "orders.v1.Orders" });
  });

  it("imports an existing monitor with no changes planned after it", async () => {
    await tf.reimport("service_grpc_monitor.orders", id);
    await tf.plan(0);
  });

  it("destroys what it made", async () => {
    await tf.destroy();
    const { grpcMonitors, totalSize } = await fx.client().listMonitors({ limit: 100 });
    expect({ grpcMonitors, totalSize }).toEqual({ grpcMonitors: [], totalSize: 0 });
  });
});

describe("service_grpc_monitor plan-time errors", () => {
  const tf = fx.folder();

  it("names the attribute and the rule of a bad value", async () => {
    await tf.configure(monitor(ORDERS.replace('"NOT_SERVING"', '"HEALTHY"')));
    const { stderr } = await tf.expectExit(1, "plan");
    expect(stderr).toContain("Invalid value for expected_status");
    expect(stderr).toContain("must be one of SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN");
  });
});
