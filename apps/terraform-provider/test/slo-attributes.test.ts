import { terraformTests } from "./support/terraform.js";

/** availability_objective, latency_objective_ms and latency_objective_percent on every monitor resource. */
const CONFIG = (webObjective: number) => `
resource "service_http_monitor" "web" {
  name                      = "Web"
  url                       = "https://example.com/health"
  periodicity               = "1m"
  availability_objective    = ${webObjective}
  latency_objective_ms      = 500
  latency_objective_percent = 95
}

resource "service_tcp_monitor" "db" {
  name                   = "Database"
  uri                    = "db.internal:5432"
  periodicity            = "1m"
  availability_objective = 99.5
}

resource "service_dns_monitor" "ns" {
  name                      = "Name servers"
  uri                       = "example.com"
  periodicity               = "5m"
  latency_objective_ms      = 200
  latency_objective_percent = 99
}

resource "service_grpc_monitor" "api" {
  name                   = "API"
  uri                    = "api.internal:443"
  periodicity            = "1m"
  availability_objective = 99.999
}

resource "service_tcp_monitor" "plain" {
  name        = "Cache"
  uri         = "cache.internal:6379"
  periodicity = "5m"
}
`;

const fx = terraformTests();
const configOf = async (id: unknown) => (await fx.client().getMonitor({ id: String(id) })).monitor?.config.value;

describe("monitor SLO attributes with terraform", () => {
  const tf = fx.folder();

  it("creates each kind with its objectives, none where left out, and no changes on a second plan", async () => {
    await tf.configure(CONFIG(99.95));
    await tf.apply();
    const [web, db, ns, api, plain] = await Promise.all(
      ["service_http_monitor.web", "service_tcp_monitor.db", "service_dns_monitor.ns", "service_grpc_monitor.api", "service_tcp_monitor.plain"].map((a) => tf.stateOf(a)),
    );
    expect(web).toMatchObject({ availability_objective: 99.95, latency_objective_ms: 500, latency_objective_percent: 95 });
    expect(await configOf(web?.id)).toMatchObject({ availabilityObjective: 99.95, latencyObjectiveMs: 500n, latencyObjectivePercent: 95 });
    expect(await configOf(db?.id)).toMatchObject({ availabilityObjective: 99.5, latencyObjectiveMs: 0n });
    expect(await configOf(ns?.id)).toMatchObject({ availabilityObjective: 0, latencyObjectiveMs: 200n, latencyObjectivePercent: 99 });
    expect(await configOf(api?.id)).toMatchObject({ availabilityObjective: 99.999 });
    expect(plain).toMatchObject({ availability_objective: 0, latency_objective_ms: 0, latency_objective_percent: 0 });
    await tf.plan(0);
  });

  it("updates in place, shows a change made outside Terraform as drift, and imports with no changes after", async () => {
    await tf.configure(CONFIG(99.9));
    expect((await tf.plan(2)).stdout).toMatch(/~ availability_objective\s+= 99.95 -> 99.9/);
    await tf.apply();
    const web = await tf.stateOf("service_http_monitor.web");
    await fx.client().updateHTTPMonitor({ id: String(web?.id), monitor: { latencyObjectivePercent: 90 }, updateMask: { paths: ["latency_objective_percent"] } });
    expect((await tf.plan(2)).stdout).toMatch(/~ latency_objective_percent\s+= 90 -> 95/);
    await tf.apply();
    await tf.plan(0);
    await tf.reimport("service_http_monitor.web", String(web?.id));
    await tf.plan(0);
  });

  it("destroys what it made", async () => {
    await tf.destroy();
    expect((await fx.client().listMonitors({ limit: 100 })).totalSize).toBe(0);
  });
});

describe("monitor SLO attributes: plan-time errors", () => {
  const tf = fx.folder();

  it("names the attribute and the rule of a bad objective or half a latency objective", async () => {
    await tf.configure(`
resource "service_tcp_monitor" "db" {
  name                   = "Database"
  uri                    = "db.internal:5432"
  periodicity            = "1m"
  availability_objective = 100
  latency_objective_ms   = 300
}
`);
    const { stderr } = await tf.expectExit(1, "plan");
    expect(stderr).toContain("Invalid value for availability_objective");
    // Terraform wraps the rule's lines.
    expect(stderr.replace(/\s+/g, " ")).toContain("must be 0 (no objective) or a percent from 50 to 99.999 with at most 3 decimals");
    expect(stderr).toContain("Invalid value for latency_objective_percent");
  });
});
