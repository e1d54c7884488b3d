import { providerConfig, terraformTests } from "./support/terraform.js";

const monitor = (fields: string) => `
resource "service_tcp_monitor" "db" {
${fields}
}
`;

const DB = `
  name        = "Database"
  uri         = "db.internal:5432"
  periodicity = "1m"
  regions     = ["hostA-ams", "hostB-fra"]
  open_telemetry {
    endpoint = "https://otel.example.com/v1/metrics"
    headers {
      key   = "authorization"
      value = "Bearer otel"
    }
  }`;

/** The least a monitor needs, with a uri only known after apply (terraform_data's output): validation and plan skip unknown values. */
const MINIMAL = `
resource "terraform_data" "port" {
  input = "6379"
}

resource "service_tcp_monitor" "minimal" {
  name        = "Cache"
  uri         = "cache.internal:\${terraform_data.port.output}"
  periodicity = "5m"
}
`;

const fx = terraformTests();

const getMonitor = (id: string) => fx.client().getMonitor({ id });

describe("service_tcp_monitor with terraform", () => {
  const tf = fx.folder();
  let id: string;
  const write = (fields: string) => tf.configure(monitor(fields) + MINIMAL);

  it("creates the monitor with the contract's defaults, and a second plan shows no changes", async () => {
    await write(DB);
    await tf.apply();
    const state = await tf.stateOf("service_tcp_monitor.db");
    id = String(state?.id);
    const { monitor: created } = await getMonitor(id);
    expect(created?.config.case).toBe("tcp");
    expect(created?.config.value).toMatchObject({
      name: "Database",
      uri: "db.internal:5432",
      timeout: 45000n,
      retry: 3n,
      degradedAt: 22500n,
      active: false,
      public: false,
      openTelemetry: { endpoint: "https://otel.example.com/v1/metrics", headers: [{ key: "authorization", value: "Bearer otel" }] },
    });
    expect(state).toMatchObject({ timeout: 45000, retry: 3, degraded_at: 22500, description: "", status: "unknown" });
    const minimal = await tf.stateOf("service_tcp_monitor.minimal");
    expect(minimal).toMatchObject({ uri: "cache.internal:6379", regions: [], open_telemetry: null, active: false, public: false });
    const stored = (await getMonitor(String(minimal?.id))).monitor?.config.value;
    expect(stored).toMatchObject({ uri: "cache.internal:6379", periodicity: expect.any(Number) });
    expect((stored as { openTelemetry?: unknown } | undefined)?.openTelemetry).toBeUndefined();
    await tf.plan(0);
  });

  it("updates in place, keeping the id", async () => {
    await write(`${DB}\n  timeout = 10000\n  description = "primary"\n  active = true`);
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("will be updated in-place");
    await tf.apply();
    expect((await tf.stateOf("service_tcp_monitor.db"))?.id).toBe(id);
    const { monitor: updated } = await getMonitor(id);
    // degraded_at was computed once, on create, and stays: the update sends it back unchanged.
    expect(updated?.config.value).toMatchObject({ timeout: 10000n, description: "primary", active: true, degradedAt: 22500n });
    await tf.plan(0);
  });

  it("shows a field changed outside Terraform as drift, and puts it back", async () => {
    await fx.client().updateTCPMonitor({ id, monitor: { name: "Renamed by hand" }, updateMask: { paths: ["name"] } });
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/~ name\s+= "Renamed by hand" -> "Database"/);
    await tf.apply();
    expect((await getMonitor(id)).monitor?.config.value).toMatchObject({ name: "Database" });
  });

  it("imports an existing monitor with no changes planned after it", async () => {
    await tf.reimport("service_tcp_monitor.db", id);
    await tf.plan(0);
  });

  it("plans to create again a monitor deleted outside Terraform", async () => {
    await fx.client().deleteMonitor({ id });
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("service_tcp_monitor.db will be created");
    await tf.apply();
    id = String((await tf.stateOf("service_tcp_monitor.db"))?.id);
    expect((await getMonitor(id)).monitor?.config.value).toMatchObject({ name: "Database", timeout: 10000n });
  });

  it("destroys what it made", async () => {
    await tf.destroy();
    const { tcpMonitors, totalSize } = await fx.client().listMonitors({ limit: 100 });
    expect({ tcpMonitors, totalSize }).toEqual({ tcpMonitors: [], totalSize: 0 });
  });
});

describe("service_tcp_monitor plan-time errors", () => {
  const tf = fx.folder();

  it("names the attribute and the rule of a bad value", async () => {
    await tf.configure(monitor(`${DB}\n  timeout = 999999`).replace('"1m"', '"2m"'));
    const { stderr } = await tf.expectExit(1, "plan");
    expect(stderr).toContain("Invalid value for periodicity");
    expect(stderr).toContain("periodicity must be one of 30s, 1m, 5m, 10m, 30m, 1h");
    expect(stderr).toContain("Invalid value for timeout");
    expect(stderr).toContain("timeout = 999999");
  });

  it("says how to give the API token when there is none", async () => {
    await tf.write(providerConfig(fx.api.baseUrl) + monitor(DB));
    const { stderr } = await tf.expectExit(1, "plan");
    expect(stderr).toContain("Missing api_token");
    expect(stderr).toContain("SERVICE_API_TOKEN");
    const withEnv = await tf.run(["plan", "-no-color", "-detailed-exitcode"], { SERVICE_API_TOKEN: fx.ws.write.key });
    expect({ code: withEnv.code, stderr: withEnv.stderr }).toEqual({ code: 2, stderr: "" });
  });
});
