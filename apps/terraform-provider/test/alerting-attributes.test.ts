import { terraformTests } from "./support/terraform.js";

/** alert_quorum, confirmations and recovery_confirmations on the three monitor resources. */
const CONFIG = (webConfirmations: number) => `
resource "service_http_monitor" "web" {
  name                   = "Web"
  url                    = "https://example.com/health"
  periodicity            = "1m"
  regions                = ["hostA-ams", "hostB-fra", "hostA-iad"]
  alert_quorum           = "majority"
  confirmations          = ${webConfirmations}
  recovery_confirmations = 2
}

resource "service_tcp_monitor" "db" {
  name         = "Database"
  uri          = "db.internal:5432"
  periodicity  = "1m"
  regions      = ["hostA-ams", "hostB-fra"]
  alert_quorum = "2"
}

resource "service_dns_monitor" "ns" {
  name          = "Name servers"
  uri           = "example.com"
  periodicity   = "5m"
  confirmations = 10
}

resource "service_tcp_monitor" "plain" {
  name        = "Cache"
  uri         = "cache.internal:6379"
  periodicity = "5m"
}
`;

const fx = terraformTests();
const configOf = async (id: unknown) => (await fx.client().getMonitor({ id: String(id) })).monitor?.config.value;

describe("monitor alerting attributes with terraform", () => {
  const tf = fx.folder();

  it("creates each kind with its own quorum and confirmations, the defaults where left out, and no changes on a second plan", async () => {
    await tf.configure(CONFIG(3));
    await tf.apply();
    const [web, db, ns, plain] = await Promise.all(
      ["service_http_monitor.web", "service_tcp_monitor.db", "service_dns_monitor.ns", "service_tcp_monitor.plain"].map((a) => tf.stateOf(a)),
    );
    expect(web).toMatchObject({ alert_quorum: "majority", confirmations: 3, recovery_confirmations: 2 });
    expect(await configOf(web?.id)).toMatchObject({ alertQuorum: "majority", confirmations: 3n, recoveryConfirmations: 2n });
    expect(await configOf(db?.id)).toMatchObject({ alertQuorum: "2", confirmations: 1n, recoveryConfirmations: 1n });
    expect(await configOf(ns?.id)).toMatchObject({ alertQuorum: "", confirmations: 10n, recoveryConfirmations: 1n });
    expect(plain).toMatchObject({ alert_quorum: "", confirmations: 1, recovery_confirmations: 1 });
    await tf.plan(0);
  });

  it("updates in place, and shows a change made outside Terraform as drift", async () => {
    await tf.configure(CONFIG(4));
    expect((await tf.plan(2)).stdout).toMatch(/~ confirmations\s+= 3 -> 4/);
    await tf.apply();
    const web = await tf.stateOf("service_http_monitor.web");
    await fx.client().updateHTTPMonitor({ id: String(web?.id), monitor: { alertQuorum: "all" }, updateMask: { paths: ["alert_quorum"] } });
    expect((await tf.plan(2)).stdout).toMatch(/~ alert_quorum\s+= "all" -> "majority"/);
    await tf.apply();
    expect(await configOf(web?.id)).toMatchObject({ alertQuorum: "majority", confirmations: 4n });
    await tf.plan(0);
  });

  it("imports a monitor with no changes planned after it", async () => {
    const db = await tf.stateOf("service_tcp_monitor.db");
    await tf.reimport("service_tcp_monitor.db", String(db?.id));
    await tf.plan(0);
  });

  it("destroys what it made", async () => {
    await tf.destroy();
    expect((await fx.client().listMonitors({ limit: 100 })).totalSize).toBe(0);
  });
});

describe("monitor alerting attributes: plan-time errors", () => {
  const tf = fx.folder();

  it("names the attribute and the rule of a bad quorum or confirmations", async () => {
    await tf.configure(`
resource "service_tcp_monitor" "db" {
  name                   = "Database"
  uri                    = "db.internal:5432"
  periodicity            = "1m"
  regions                = ["hostA-ams"]
  alert_quorum           = "2"
  recovery_confirmations = 0
}
`);
    const { stderr } = await tf.expectExit(1, "plan");
    expect(stderr).toContain("Invalid value for alert_quorum");
    expect(stderr).toContain("must be at most the number of the monitor's regions (1), not 2");
    expect(stderr).toContain("Invalid value for recovery_confirmations");
    expect(stderr).toContain("must be an integer from 1 to 10");
  });
});
