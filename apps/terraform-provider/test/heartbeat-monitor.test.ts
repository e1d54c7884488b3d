import { TerraformDir, providerConfig, terraformTests } from "./support/terraform.js";

const BACKUP = `
resource "service_heartbeat_monitor" "backup" {
  name          = "Nightly backup"
  cron          = "0 3 * * *"
  timezone      = "Europe/Paris"
  grace_seconds = 600
  active        = true
}
`;

const MINIMAL = `
resource "service_heartbeat_monitor" "job" {
  name = "Job"
}

output "job_ping_url" {
  value     = service_heartbeat_monitor.job.ping_url
  sensitive = true
}
`;

const fx = terraformTests();
const getMonitor = (id: string) => fx.client().getMonitor({ id });

describe("service_heartbeat_monitor with terraform", () => {
  const tf = fx.folder();
  let id: string;

  it("creates monitors with the contract's defaults and a sensitive ping URL, and a second plan shows no changes", async () => {
    await tf.configure(BACKUP + MINIMAL);
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/ping_url\s+= \(sensitive value\)/);
    await tf.apply();
    const state = await tf.stateOf("service_heartbeat_monitor.backup");
    id = String(state?.id);
    const { monitor } = await getMonitor(id);
    expect(monitor?.config.case).toBe("heartbeat");
    expect(monitor?.config.value).toMatchObject({ name: "Nightly backup", cron: "0 3 * * *", timezone: "Europe/Paris", graceSeconds: 600n, active: true });
    expect(state).toMatchObject({ period_seconds: null, cron: "0 3 * * *", grace_seconds: 600, status: "unknown", ping_url: (monitor?.config.value as { pingUrl: string }).pingUrl });
    const job = await tf.stateOf("service_heartbeat_monitor.job");
    expect(job).toMatchObject({ period_seconds: 86400, cron: "", timezone: "UTC", grace_seconds: 3600, active: false, public: false, description: "" });
    expect(String(job?.ping_url)).toMatch(/^https:\/\/vigil\.test\/v1\/ping\/[A-Za-z0-9_-]{32}$/);
    await tf.plan(0);
  });

  it("updates in place, keeping the id and the ping URL, and shows a change made outside Terraform as drift", async () => {
    const before = await tf.stateOf("service_heartbeat_monitor.backup");
    await tf.configure(BACKUP.replace("grace_seconds = 600", "grace_seconds = 900") + MINIMAL);
    await tf.apply();
    const after = await tf.stateOf("service_heartbeat_monitor.backup");
    expect(after).toMatchObject({ id, grace_seconds: 900, ping_url: before?.ping_url });
    await fx.client().updateHeartbeatMonitor({ id, monitor: { name: "Renamed by hand" }, updateMask: { paths: ["name"] } });
    const plan = await tf.plan(2);
    expect(plan.stdout).toMatch(/~ name\s+= "Renamed by hand" -> "Nightly backup"/);
    await tf.apply();
    expect((await getMonitor(id)).monitor?.config.value).toMatchObject({ name: "Nightly backup" });
  });

  it("moves a monitor from a cron expression to a period and back", async () => {
    await tf.configure(BACKUP.replace('  cron          = "0 3 * * *"\n', '  period_seconds = 300\n') + MINIMAL);
    await tf.apply();
    expect(await tf.stateOf("service_heartbeat_monitor.backup")).toMatchObject({ id, period_seconds: 300, cron: "" });
    await tf.plan(0);
    await tf.configure(BACKUP + MINIMAL);
    await tf.apply();
    expect(await tf.stateOf("service_heartbeat_monitor.backup")).toMatchObject({ id, period_seconds: null, cron: "0 3 * * *" });
    await tf.plan(0);
  });

  it("lists heartbeats in service_monitors", async () => {
    await tf.configure(BACKUP + MINIMAL + `\ndata "service_monitors" "all" {}\n\noutput "types" {\n  value = data.service_monitors.all.monitors[*].type\n}\n`);
    await tf.apply();
    const listed = await tf.run(["output", "-json", "types"]);
    expect(JSON.parse(listed.stdout)).toEqual(["heartbeat", "heartbeat"]);
    await tf.configure(BACKUP + MINIMAL);
    await tf.apply();
  });

  it("reads a heartbeat through service_monitor: its schedule, and its ping URL as a sensitive value the write key is answered", async () => {
    const data = `\ndata "service_monitor" "backup" {\n  id = service_heartbeat_monitor.backup.id\n}\n\ndata "service_monitor" "job" {\n  id = service_heartbeat_monitor.job.id\n}\n`;
    await tf.configure(BACKUP + MINIMAL + data + `\noutput "backup_ping_url" {\n  value = data.service_monitor.backup.ping_url\n}\n`);
    // An output of a sensitive value must say so: Terraform refuses it otherwise.
    expect((await tf.expectExit(1, "plan")).stderr.replace(/\s+/g, " ")).toContain("Output refers to sensitive values");
    await tf.configure(BACKUP + MINIMAL + data);
    await tf.apply();
    const resource = await tf.stateOf("service_heartbeat_monitor.backup");
    expect(await tf.stateOf("data.service_monitor.backup")).toEqual({
      id,
      type: "heartbeat",
      name: "Nightly backup",
      url: null,
      uri: null,
      periodicity: null,
      method: null,
      active: true,
      public: false,
      description: "",
      timeout: null,
      period_seconds: null,
      cron: "0 3 * * *",
      timezone: "Europe/Paris",
      grace_seconds: 600,
      ping_url: resource?.ping_url,
      depends_on_monitors: [],
      status: "unknown",
    });
    expect(await tf.stateOf("data.service_monitor.job")).toMatchObject({ type: "heartbeat", period_seconds: 86400, cron: "", grace_seconds: 3600, active: false });
    await tf.plan(0);

    // A read key is not answered the ping URL: null, not a guess.
    const readOnly = await TerraformDir.create();
    try {
      await readOnly.write(providerConfig(fx.api.baseUrl, fx.ws.read.key) + `data "service_monitor" "backup" {\n  id = "${id}"\n}\n`);
      await readOnly.apply();
      expect(await readOnly.stateOf("data.service_monitor.backup")).toMatchObject({ type: "heartbeat", cron: "0 3 * * *", ping_url: null });
    } finally {
      await readOnly.remove();
    }
    await tf.configure(BACKUP + MINIMAL);
    await tf.apply();
  });

  it("imports an existing monitor with no changes planned after it", async () => {
    await tf.reimport("service_heartbeat_monitor.backup", id);
    await tf.plan(0);
  });

  it("names the attribute and the rule of a bad value at plan time", async () => {
    await tf.configure(BACKUP.replace('"Europe/Paris"', '"Mars/Olympus"') + MINIMAL);
    const { stderr } = await tf.expectExit(1, "plan");
    expect(stderr).toContain("Invalid value for timezone");
    expect(stderr).toContain("must be an IANA time zone");
  });

  it("destroys what it made", async () => {
    await tf.configure(BACKUP + MINIMAL);
    await tf.destroy();
    const { heartbeatMonitors, totalSize } = await fx.client().listMonitors({ limit: 100 });
    expect({ heartbeatMonitors, totalSize }).toEqual({ heartbeatMonitors: [], totalSize: 0 });
  });
});
