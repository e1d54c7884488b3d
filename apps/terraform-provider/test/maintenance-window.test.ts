import { terraformTests } from "./support/terraform.js";

interface Setup {
  title?: string;
  recurrence?: string;
  endsAt?: string;
}

/** A weekly window over a TCP monitor and a status page component of the same configuration. */
const configuration = ({ title = "DB upgrade", recurrence = "FREQ=WEEKLY;BYDAY=SU", endsAt = "2030-03-03T02:00:00Z" }: Setup = {}) => `
resource "service_tcp_monitor" "db" {
  name        = "Database"
  uri         = "db.example.com:5432"
  periodicity = "1m"
}

resource "service_status_page" "main" {
  title = "Acme"
  slug  = "acme-maintenance"
}

resource "service_status_page_component" "web" {
  page_id = service_status_page.main.id
  type    = "static"
  name    = "Web"
}

resource "service_maintenance_window" "weekly" {
  title              = "${title}"
  message            = "The database restarts."
  starts_at          = "2030-03-03T01:00:00Z"
  ends_at            = "${endsAt}"
  recurrence         = "${recurrence}"
  timezone           = "Europe/Berlin"
  monitor_ids        = [service_tcp_monitor.db.id]
  page_component_ids = [service_status_page_component.web.id]
}
`;

const fx = terraformTests();
const windows = () => fx.api.maintenanceClient(fx.ws.write.key);

describe("service_maintenance_window with terraform", () => {
  const tf = fx.folder();
  const write = (setup?: Setup) => tf.configure(configuration(setup));
  let id = "";

  it("creates the window naming the monitor and the component, and a second plan shows no changes", async () => {
    await write();
    await tf.apply();
    const state = await tf.stateOf("service_maintenance_window.weekly");
    id = String(state?.id);
    const monitorId = String((await tf.stateOf("service_tcp_monitor.db"))?.id);
    const componentId = String((await tf.stateOf("service_status_page_component.web"))?.id);
    const { maintenance } = await windows().getMaintenanceWindow({ id });
    expect(maintenance).toMatchObject({ title: "DB upgrade", message: "The database restarts.", recurrence: "FREQ=WEEKLY;BYDAY=SU", timezone: "Europe/Berlin", monitorIds: [monitorId], pageComponentIds: [componentId] });
    expect(state).toMatchObject({ starts_at: "2030-03-03T01:00:00Z", ends_at: "2030-03-03T02:00:00Z", created_at: expect.stringMatching(/^\d{4}-/) });
    await tf.plan(0);
  });

  it("updates in place, shows a change made outside Terraform as drift and puts it back", async () => {
    await write({ title: "DB upgrade, longer", endsAt: "2030-03-03T03:00:00Z" });
    const plan = await tf.plan(2);
    expect(plan.stdout).toContain("service_maintenance_window.weekly will be updated in-place");
    await tf.apply();
    expect(String((await tf.stateOf("service_maintenance_window.weekly"))?.id)).toBe(id);
    expect((await windows().getMaintenanceWindow({ id })).maintenance).toMatchObject({ title: "DB upgrade, longer", nextOccurrences: expect.arrayContaining([]) });
    await tf.plan(0);

    const byHand = await windows().updateMaintenanceWindow({ id, maintenance: { title: "By hand", recurrence: "" } });
    expect(byHand.maintenance).toMatchObject({ title: "By hand", recurrence: "" });
    const drift = await tf.plan(2);
    expect(drift.stdout).toMatch(/~ title\s+= "By hand" -> "DB upgrade, longer"/);
    // Terraform's plan shows an attribute going from "" as one being set.
    expect(drift.stdout).toMatch(/[+~] recurrence\s+= (?:"" -> )?"FREQ=WEEKLY;BYDAY=SU"/);
    await tf.apply();
    expect((await windows().getMaintenanceWindow({ id })).maintenance).toMatchObject({ title: "DB upgrade, longer", recurrence: "FREQ=WEEKLY;BYDAY=SU" });
    await tf.plan(0);
  });

  it("imports a window by id and plans no change", async () => {
    await tf.reimport("service_maintenance_window.weekly", id);
    await tf.plan(0);
  });

  it("refuses a bad RRULE at plan time, naming the attribute", async () => {
    await write({ recurrence: "FREQ=WEEKLY;BYDAI=SU" });
    const { stderr } = await tf.expectExit(1, "plan");
    expect(stderr).toContain("BYDAI is not a rule part");
    expect(stderr).toContain("recurrence");
  });

  it("destroys the window", async () => {
    await write();
    await tf.destroy();
    await expect(windows().getMaintenanceWindow({ id })).rejects.toThrow(/not found/);
  });
});
