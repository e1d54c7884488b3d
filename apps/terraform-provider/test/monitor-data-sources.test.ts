import { providerConfig, terraformTests } from "./support/terraform.js";

const MONITORS = `
resource "service_http_monitor" "site" {
  name        = "Website"
  url         = "https://example.com/"
  periodicity = "30s"
  method      = "HEAD"
  active      = true
  description = "front door"
}

resource "service_tcp_monitor" "db" {
  name        = "Database"
  uri         = "db.example.com:5432"
  periodicity = "1m"
  timeout     = 5000
}

resource "service_dns_monitor" "domain" {
  name        = "Domain"
  uri         = "example.com"
  periodicity = "1h"
  public      = true
}
`;

const DATA_SOURCES = `
data "service_monitor" "site" {
  id = service_http_monitor.site.id
}

data "service_monitor" "db" {
  id = service_tcp_monitor.db.id
}

data "service_monitor" "domain" {
  id = service_dns_monitor.domain.id
}

data "service_monitors" "all" {
  depends_on = [service_http_monitor.site, service_tcp_monitor.db, service_dns_monitor.domain]
}

data "service_monitors" "page" {
  limit      = 2
  offset     = 1
  depends_on = [service_http_monitor.site, service_tcp_monitor.db, service_dns_monitor.domain]
}
`;

const fx = terraformTests();

describe("service_monitor and service_monitors data sources", () => {
  const tf = fx.folder();

  it("read what the resources made, each kind with its own fields", async () => {
    await tf.configure(MONITORS + DATA_SOURCES);
    await tf.apply();
    const id = async (address: string) => String((await tf.stateOf(address))?.id);
    const [site, db, domain] = [await id("service_http_monitor.site"), await id("service_tcp_monitor.db"), await id("service_dns_monitor.domain")];

    expect(await tf.stateOf("data.service_monitor.site")).toEqual({
      id: site,
      type: "http",
      name: "Website",
      url: "https://example.com/",
      uri: null,
      periodicity: "30s",
      method: "HEAD",
      active: true,
      public: false,
      description: "front door",
      timeout: 45000,
      // A heartbeat's schedule and ping URL: none for the kinds agents check.
      period_seconds: null,
      cron: null,
      timezone: null,
      grace_seconds: null,
      ping_url: null,
      depends_on_monitors: [],
      status: "unknown",
    });
    expect(await tf.stateOf("data.service_monitor.db")).toMatchObject({ id: db, type: "tcp", uri: "db.example.com:5432", url: null, method: null, timeout: 5000 });
    expect(await tf.stateOf("data.service_monitor.domain")).toMatchObject({ id: domain, type: "dns", uri: "example.com", url: null, method: null, public: true, periodicity: "1h" });

    const all = await tf.stateOf("data.service_monitors.all");
    expect(all).toMatchObject({ limit: 50, offset: 0 });
    const listed = all?.monitors as { id: string; name: string; type: string }[];
    expect([...listed].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { id: db, name: "Database", type: "tcp" },
      { id: domain, name: "Domain", type: "dns" },
      { id: site, name: "Website", type: "http" },
    ]);
    // The API's own order, oldest first: a page is a slice of it.
    const { httpMonitors, tcpMonitors, dnsMonitors } = await fx.api.client(fx.ws.read.key).listMonitors({ limit: 100 });
    const oldestFirst = [...httpMonitors, ...tcpMonitors, ...dnsMonitors]
      .sort((a, b) => Number(a.createdAt!.seconds - b.createdAt!.seconds) || a.createdAt!.nanos - b.createdAt!.nanos || (a.id < b.id ? -1 : 1))
      .map((monitor) => monitor.id);
    expect(listed.map((monitor) => monitor.id)).toEqual(oldestFirst);
    expect(await tf.stateOf("data.service_monitors.page")).toEqual({ limit: 2, offset: 1, monitors: listed.slice(1, 3) });
    await tf.plan(0);
  });

  it("read again after a change made outside Terraform", async () => {
    const id = String((await tf.stateOf("service_tcp_monitor.db"))?.id);
    await fx.client().updateTCPMonitor({ id, monitor: { name: "Primary database" }, updateMask: { paths: ["name"] } });
    await tf.expectExit(0, "apply", "-auto-approve", "-refresh-only");
    expect(await tf.stateOf("data.service_monitor.db")).toMatchObject({ name: "Primary database" });
    expect((await tf.stateOf("data.service_monitors.all"))?.monitors).toContainEqual({ id, name: "Primary database", type: "tcp" });
  });

  it("names the attribute and the rule of a page out of bounds, and says when a monitor does not exist", async () => {
    await tf.write(
      providerConfig(fx.api.baseUrl, fx.ws.read.key) +
        `data "service_monitors" "big" {\n  limit = 101\n}\n\ndata "service_monitors" "before" {\n  offset = -1\n}\n`,
    );
    const bounds = (await tf.expectExit(1, "plan")).stderr.replace(/\s+/g, " ");
    expect(bounds).toContain("Invalid value for limit");
    expect(bounds).toContain("limit must be an integer from 1 to 100");
    expect(bounds).toContain("limit = 101");
    expect(bounds).toContain("Invalid value for offset");

    await tf.write(providerConfig(fx.api.baseUrl, fx.ws.read.key) + `data "service_monitor" "gone" {\n  id = "no-such-monitor"\n}\n`);
    const missing = (await tf.expectExit(1, "plan")).stderr.replace(/\s+/g, " ");
    expect(missing).toContain("Could not read service_monitor");
    expect(missing).toContain("no-such-monitor");
  });

  it("leave nothing behind when the resources are destroyed", async () => {
    await tf.configure(MONITORS + DATA_SOURCES);
    await tf.destroy();
    expect((await fx.client().listMonitors({})).totalSize).toBe(0);
  });
});
