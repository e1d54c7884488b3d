import { terraformTests } from "./support/terraform.js";

/** depends_on_monitors (the API's dependsOn; `depends_on` is Terraform's own meta-argument) on every monitor resource. */
const CONFIG = (jobDependsOn: string) => `
resource "service_http_monitor" "web" {
  name        = "Web"
  url         = "https://example.com/health"
  periodicity = "1m"
}

resource "service_tcp_monitor" "db" {
  name                = "Database"
  uri                 = "db.internal:5432"
  periodicity         = "1m"
  depends_on_monitors = [service_http_monitor.web.id]
}

resource "service_dns_monitor" "ns" {
  name                = "Name servers"
  uri                 = "example.com"
  periodicity         = "5m"
  depends_on_monitors = [service_tcp_monitor.db.id, service_http_monitor.web.id]
}

resource "service_grpc_monitor" "api" {
  name                = "API"
  uri                 = "api.internal:443"
  periodicity         = "1m"
  depends_on_monitors = [service_tcp_monitor.db.id]
}

resource "service_heartbeat_monitor" "job" {
  name                = "Job"
  depends_on_monitors = [${jobDependsOn}]
}

data "service_monitor" "ns" {
  id = service_dns_monitor.ns.id
}
`;

const fx = terraformTests();
const configOf = async (id: unknown) => (await fx.client().getMonitor({ id: String(id) })).monitor?.config.value;

describe("depends_on_monitors with terraform", () => {
  const tf = fx.folder();
  const ids: Record<string, string> = {};

  it("creates each kind with its dependencies (in the order Terraform's references give), and no changes on a second plan", async () => {
    await tf.configure(CONFIG("service_dns_monitor.ns.id"));
    await tf.apply();
    for (const [name, address] of Object.entries({
      web: "service_http_monitor.web",
      db: "service_tcp_monitor.db",
      ns: "service_dns_monitor.ns",
      job: "service_heartbeat_monitor.job",
      api: "service_grpc_monitor.api",
    })) {
      ids[name] = String((await tf.stateOf(address))?.id);
    }
    expect(await tf.stateOf("service_http_monitor.web")).toMatchObject({ depends_on_monitors: [] });
    expect(await tf.stateOf("service_dns_monitor.ns")).toMatchObject({ depends_on_monitors: [ids.db, ids.web] });
    expect(await tf.stateOf("data.service_monitor.ns")).toMatchObject({ depends_on_monitors: [ids.db, ids.web] });
    expect(await configOf(ids.db)).toMatchObject({ dependsOn: [ids.web] });
    expect(await configOf(ids.job)).toMatchObject({ dependsOn: [ids.ns] });
    expect(await configOf(ids.api)).toMatchObject({ dependsOn: [ids.db] });
    await tf.plan(0);
  });

  it("updates in place, and shows a change made outside Terraform as drift", async () => {
    await tf.configure(CONFIG("service_dns_monitor.ns.id, service_http_monitor.web.id"));
    expect((await tf.plan(2)).stdout).toMatch(/~ depends_on_monitors\s+= \[/);
    await tf.apply();
    expect(await configOf(ids.job)).toMatchObject({ dependsOn: [ids.ns, ids.web] });
    await fx.client().updateTCPMonitor({ id: ids.db!, monitor: {}, updateMask: { paths: ["depends_on"] } });
    expect((await tf.plan(2)).stdout).toContain(`+ "${ids.web}"`);
    await tf.apply();
    expect(await configOf(ids.db)).toMatchObject({ dependsOn: [ids.web] });
    await tf.plan(0);
  });

  it("imports monitors with dependencies with no changes planned after", async () => {
    await tf.reimport("service_dns_monitor.ns", ids.ns!);
    await tf.reimport("service_heartbeat_monitor.job", ids.job!);
    await tf.plan(0);
  });

  it("refuses a cycle at apply with the API's words", async () => {
    const cycle = CONFIG("service_dns_monitor.ns.id").replace(
      `resource "service_http_monitor" "web" {\n  name        = "Web"`,
      `resource "service_http_monitor" "web" {\n  depends_on_monitors = ["${ids.job}"]\n  name        = "Web"`,
    );
    await tf.configure(cycle);
    const run = await tf.expectExit(1, "apply", "-auto-approve");
    // The job still depends on the web monitor directly (this apply stops before changing it): the shortest cycle is named.
    expect(run.stderr.replace(/\s+/g, " ")).toContain(`Invalid value for depends_on_monitors`);
    expect(run.stderr.replace(/\s+/g, " ")).toContain(`depends_on_monitors makes a cycle: Web (${ids.web}) → Job (${ids.job}) → Web (${ids.web})`);
  });

  it("destroys what it made", async () => {
    await tf.configure(CONFIG("service_dns_monitor.ns.id"));
    await tf.destroy();
    expect((await fx.client().listMonitors({ limit: 100 })).totalSize).toBe(0);
  });
});
