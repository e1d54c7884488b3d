import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema, timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, type Client } from "@connectrpc/connect";
import { Periodicity, type MaintenanceService, type MaintenanceWindow } from "@vigil/proto";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { expectRefused, rejection } from "./support/codes";

const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });
const at = (iso: string) => timestampFromDate(new Date(iso));
const UNKNOWN_ID = "0190f000-0000-7000-8000-000000000000";
type Init = Partial<Omit<MaintenanceWindow, "$typeName" | "$unknown">>;

describe.each(BACKENDS)("maintenance windows API on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof MaintenanceService>;
  let readClient: Client<typeof MaintenanceService>;
  let otherClient: Client<typeof MaintenanceService>;
  let monitorId: string;
  let otherMonitorId: string;
  let componentId: string;
  let pageId: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    const keys = await api.workspace();
    const other = await api.workspace();
    client = api.maintenanceClient(keys.write.key);
    readClient = api.maintenanceClient(keys.read.key);
    otherClient = api.maintenanceClient(other.write.key);
    const monitor = (key: string) => api.client(key).createTCPMonitor({ monitor: { name: "db", uri: "example.com:5432", periodicity: Periodicity.PERIODICITY_5M } });
    monitorId = (await monitor(keys.write.key)).monitor!.id;
    otherMonitorId = (await monitor(other.write.key)).monitor!.id;
    const pages = api.statusPageClient(keys.write.key);
    pageId = (await pages.createStatusPage({ statusPage: { title: "Acme", slug: "acme-maintenance" } })).statusPage!.id;
    componentId = (await pages.createStatusPageComponent({ component: { pageId, type: "static", name: "Web" } })).component!.id;
  });
  afterAll(() => api.close());

  const valid = (init: Init = {}): Init => ({ title: "DB upgrade", startsAt: at("2030-03-03T01:00:00Z"), endsAt: at("2030-03-03T02:00:00Z"), monitorIds: [monitorId], ...init });
  const createWindow = async (init: Init = {}) => (await client.createMaintenanceWindow({ maintenance: valid(init) })).maintenance!;
  const snapshot = () => api.db.prisma.maintenanceWindow.findMany({ orderBy: { id: "asc" }, include: { monitors: true, components: true } });
  const refused = (call: () => Promise<unknown>, code: Code, message: string) => expectRefused(snapshot, call, code, message);

  it("stores a recurring window naming a monitor and a component, and answers it on get and list with its next occurrences", async () => {
    const window = await createWindow({
      message: "We *upgrade* the database.",
      recurrence: "FREQ=WEEKLY;BYDAY=SU;COUNT=3",
      timezone: "Europe/Berlin",
      pageComponentIds: [componentId],
    });
    expect(window).toMatchObject({ title: "DB upgrade", message: "We *upgrade* the database.", recurrence: "FREQ=WEEKLY;BYDAY=SU;COUNT=3", timezone: "Europe/Berlin", monitorIds: [monitorId], pageComponentIds: [componentId] });
    expect(window.nextOccurrences.map((o) => timestampDate(o.startsAt!).toISOString())).toEqual(["2030-03-03T01:00:00.000Z", "2030-03-10T01:00:00.000Z", "2030-03-17T01:00:00.000Z"]);
    expect((await readClient.getMaintenanceWindow({ id: window.id })).maintenance).toEqual(window);
    const listed = await readClient.listMaintenanceWindows({});
    expect(listed.maintenances.map((m) => m.id)).toContain(window.id);
    expect(listed.totalSize).toBe(listed.maintenances.length);
    await client.deleteMaintenanceWindow({ id: window.id });
  });

  it("takes the defaults: no message, no recurrence, UTC", async () => {
    const window = await createWindow();
    expect(window).toMatchObject({ message: "", recurrence: "", timezone: "UTC", pageComponentIds: [] });
    expect(window.nextOccurrences).toHaveLength(1);
    await client.deleteMaintenanceWindow({ id: window.id });
  });

  it.each<[string, Init, string]>([
    ["no title", { title: "" }, "maintenance.title: must not be empty"],
    ["an end before the start", { endsAt: at("2030-03-03T00:00:00Z") }, "maintenance.endsAt: must be after startsAt"],
    ["no start", { startsAt: undefined }, "maintenance.startsAt: is required"],
    ["an RRULE with an unknown part", { recurrence: "FREQ=WEEKLY;BYDAI=SU" }, "maintenance.recurrence: must be an RFC 5545 RRULE: BYDAI is not a rule part"],
    ["an hourly RRULE", { recurrence: "FREQ=HOURLY" }, "maintenance.recurrence: must have FREQ DAILY"],
    ["an unknown time zone", { timezone: "Europe/Atlantis" }, "maintenance.timezone: must be an IANA time zone"],
    ["nothing named", { monitorIds: [] }, "maintenance.monitorIds: a window names at least one monitor or page component"],
    ["a monitor of another workspace", { monitorIds: ["OTHER"] }, "maintenance.monitorIds[0]: no monitor"],
    ["an unknown component", { pageComponentIds: [UNKNOWN_ID] }, `maintenance.pageComponentIds[0]: no status page component ${UNKNOWN_ID}`],
  ])("refuses %s, naming the field, and writes nothing", async (_, init, message) => {
    const fixed = init.monitorIds?.[0] === "OTHER" ? { ...init, monitorIds: [otherMonitorId] } : init;
    await refused(() => client.createMaintenanceWindow({ maintenance: valid(fixed) }), Code.InvalidArgument, message);
  });

  it("refuses a create without a window, and a read key", async () => {
    await refused(() => client.createMaintenanceWindow({}), Code.InvalidArgument, "maintenance: is required");
    await refused(() => readClient.createMaintenanceWindow({ maintenance: valid() }), Code.PermissionDenied, "");
  });

  it("updates the fields sent, or those of the mask, and checks the result as a whole", async () => {
    const window = await createWindow({ message: "m" });
    const renamed = (await client.updateMaintenanceWindow({ id: window.id, maintenance: { title: "Renamed" } })).maintenance!;
    expect(renamed).toMatchObject({ title: "Renamed", message: "m", monitorIds: [monitorId] });
    const cleared = (await client.updateMaintenanceWindow({ id: window.id, maintenance: { pageComponentIds: [componentId] }, updateMask: mask("message", "pageComponentIds") })).maintenance!;
    expect(cleared).toMatchObject({ title: "Renamed", message: "", pageComponentIds: [componentId] });
    const recurring = (await client.updateMaintenanceWindow({ id: window.id, maintenance: { recurrence: "FREQ=DAILY;COUNT=2" } })).maintenance!;
    expect(recurring.nextOccurrences).toHaveLength(2);
    // An optional field sent empty is sent: without a mask it is cleared too.
    const once = (await client.updateMaintenanceWindow({ id: window.id, maintenance: { recurrence: "" } })).maintenance!;
    expect(once).toMatchObject({ recurrence: "", title: "Renamed" });
    expect(once.nextOccurrences).toHaveLength(1);
    await refused(() => client.updateMaintenanceWindow({ id: window.id, maintenance: { endsAt: at("2030-03-03T00:30:00Z") } }), Code.InvalidArgument, "maintenance.endsAt: must be after startsAt");
    await refused(() => client.updateMaintenanceWindow({ id: window.id, maintenance: {}, updateMask: mask("startsAt") }), Code.InvalidArgument, "maintenance.startsAt: is required");
    await refused(() => client.updateMaintenanceWindow({ id: window.id, maintenance: {}, updateMask: mask("monitorIds", "pageComponentIds") }), Code.InvalidArgument, "maintenance.monitorIds: a window names at least one");
    await refused(() => client.updateMaintenanceWindow({ id: window.id, maintenance: {}, updateMask: mask("nextOccurrences") }), Code.InvalidArgument, "updateMask: names nextOccurrences, which is not a field that can be updated");
    await refused(() => client.updateMaintenanceWindow({ id: window.id, maintenance: { monitorIds: [otherMonitorId] } }), Code.InvalidArgument, "maintenance.monitorIds[0]: no monitor");
    await client.deleteMaintenanceWindow({ id: window.id });
  });

  it("keeps an external id unique in the workspace, refuses a malformed one, and clears one sent empty", async () => {
    const window = await createWindow({ externalId: "ops/db-upgrade" });
    expect(window.externalId).toBe("ops/db-upgrade");
    expect((await client.getMaintenanceWindow({ id: window.id })).maintenance!.externalId).toBe("ops/db-upgrade");
    await refused(() => client.createMaintenanceWindow({ maintenance: valid({ externalId: "ops/db-upgrade" }) }), Code.AlreadyExists, "maintenance.externalId: another maintenance window of this workspace has external id ops/db-upgrade");
    await refused(() => client.createMaintenanceWindow({ maintenance: valid({ externalId: "-bad id" }) }), Code.InvalidArgument, "maintenance.externalId: must");
    const other = await createWindow();
    await refused(() => client.updateMaintenanceWindow({ id: other.id, maintenance: { externalId: "ops/db-upgrade" } }), Code.AlreadyExists, "maintenance.externalId: another maintenance window");
    // Another workspace has ids of its own.
    const theirs = (await otherClient.createMaintenanceWindow({ maintenance: valid({ externalId: "ops/db-upgrade", monitorIds: [otherMonitorId] }) })).maintenance!;
    expect(theirs.externalId).toBe("ops/db-upgrade");
    const renamed = (await client.updateMaintenanceWindow({ id: window.id, maintenance: { externalId: "ops/db" } })).maintenance!;
    expect(renamed).toMatchObject({ externalId: "ops/db", title: "DB upgrade" });
    expect((await client.updateMaintenanceWindow({ id: window.id, maintenance: {}, updateMask: mask("externalId") })).maintenance!.externalId).toBe("");
    for (const id of [window.id, other.id]) await client.deleteMaintenanceWindow({ id });
    await otherClient.deleteMaintenanceWindow({ id: theirs.id });
  });

  it("keeps each workspace's windows to itself", async () => {
    const window = await createWindow();
    expect((await rejection(otherClient.getMaintenanceWindow({ id: window.id }))).code).toBe(Code.NotFound);
    await refused(() => otherClient.deleteMaintenanceWindow({ id: window.id }), Code.NotFound, "maintenance window");
    expect((await otherClient.listMaintenanceWindows({})).maintenances).toEqual([]);
    await client.deleteMaintenanceWindow({ id: window.id });
  });

  it("deletes a window, and forgets a monitor or component deleted", async () => {
    const window = await createWindow({ pageComponentIds: [componentId] });
    expect((await client.deleteMaintenanceWindow({ id: window.id })).success).toBe(true);
    expect((await rejection(client.getMaintenanceWindow({ id: window.id }))).code).toBe(Code.NotFound);
    const doomed = (await api.db.prisma.statusPageComponent.create({ data: { pageId, type: "static", name: "Old" } })).id;
    const named = await createWindow({ pageComponentIds: [doomed, componentId] });
    await api.db.prisma.statusPageComponent.delete({ where: { id: doomed } });
    expect((await client.getMaintenanceWindow({ id: named.id })).maintenance!.pageComponentIds).toEqual([componentId]);
    await client.deleteMaintenanceWindow({ id: named.id });
  });

  it("tells the public pages of the components named that they changed", async () => {
    const seen: string[] = [];
    const stop = api.pipeline.pageChanges.subscribe((id: string) => seen.push(id));
    const newComponent = (await api.db.prisma.statusPageComponent.create({ data: { pageId, type: "static", name: "API" } })).id;
    const window = await createWindow({ pageComponentIds: [newComponent] });
    await client.deleteMaintenanceWindow({ id: window.id });
    stop();
    expect(seen.filter((id) => id === pageId)).toHaveLength(2);
  });
});
