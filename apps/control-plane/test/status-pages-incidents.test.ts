import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema, timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, type Client } from "@connectrpc/connect";
import { Periodicity } from "@vigil/proto";
import type { StatusPageIncident, StatusPageService } from "@vigil/proto/status-page";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { expectRefused } from "./support/codes";

const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });
type IncidentInit = Partial<Omit<StatusPageIncident, "$typeName" | "$unknown" | "createdAt" | "updatedAt" | "resolvedAt" | "updates" | "components">> & {
  components?: { componentId: string; impact: string }[];
};
const UNKNOWN_ID = "0190f000-0000-7000-8000-000000000000";

describe.each(BACKENDS)("status page incidents on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof StatusPageService>;
  let readClient: Client<typeof StatusPageService>;
  let workspaceId: string;
  let monitorId: string;
  let pages = 0;

  beforeAll(async () => {
    api = await startTestApi(backend);
    const keys = await api.workspace();
    client = api.statusPageClient(keys.write.key);
    readClient = api.statusPageClient(keys.read.key);
    workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
    const monitors = api.client(keys.write.key);
    monitorId = (await monitors.createTCPMonitor({ monitor: { name: "api", uri: "example.com:443", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;
  });
  afterAll(() => api.close());

  /** A page with two static components and one showing the monitor. */
  const newPage = async () => {
    const pageId = (await client.createStatusPage({ statusPage: { title: "Acme", slug: `incidents-${++pages}` } })).statusPage!.id;
    const component = async (init: object) => (await client.createStatusPageComponent({ component: { pageId, ...init } })).component!.id;
    return { pageId, web: await component({ type: "static", name: "Web" }), db: await component({ type: "static", name: "DB" }), api: await component({ type: "monitor", monitorId }) };
  };
  const createIncident = async (incident: IncidentInit) => (await client.createStatusPageIncident({ incident })).incident!;
  const snapshot = () => api.db.prisma.statusPageIncident.findMany({ orderBy: { id: "asc" }, include: { updates: { orderBy: { id: "asc" } }, components: { orderBy: { componentId: "asc" } } } });
  /** The call fails with this code and message, and writes nothing. */
  const refused = (call: () => Promise<unknown>, code: Code, message: string) => expectRefused(snapshot, call, code, message);
  // Resolved: a monitor has at most one open incident.
  const monitorIncident = (startedAt = new Date(), resolvedAt: Date | null = new Date()) =>
    api.db.prisma.incident.create({ data: { workspaceId, monitorId, severity: "error", startedAt, resolvedAt, regions: [] } });

  describe("create", () => {
    it("stores the incident with its components and its first update, and answers it on get and list", async () => {
      const page = await newPage();
      const incident = await createIncident({
        pageId: page.pageId,
        title: "Checkout errors",
        status: "investigating",
        message: "We are **looking** into it.",
        components: [
          { componentId: page.web, impact: "partial_outage" },
          { componentId: page.db, impact: "degraded_performance" },
        ],
      });
      expect(incident).toMatchObject({ pageId: page.pageId, title: "Checkout errors", status: "investigating", postmortem: "", monitorIncidentId: "", internal: false });
      expect(incident.message).toBeUndefined();
      expect(incident.resolvedAt).toBeUndefined();
      expect(incident.components.map(({ componentId, impact }) => ({ componentId, impact }))).toEqual([
        { componentId: page.web, impact: "partial_outage" },
        { componentId: page.db, impact: "degraded_performance" },
      ]);
      expect(incident.updates).toHaveLength(1);
      expect(incident.updates[0]).toMatchObject({ incidentId: incident.id, status: "investigating", message: "We are **looking** into it." });
      expect((await readClient.getStatusPageIncident({ id: incident.id })).incident).toEqual(incident);
      const listed = await readClient.listStatusPageIncidents({ pageId: page.pageId });
      expect(listed).toMatchObject({ totalSize: 1, incidents: [incident] });
    });

    it("stamps a resolved incident as resolved at once", async () => {
      const page = await newPage();
      const incident = await createIncident({ pageId: page.pageId, title: "Done", status: "resolved", message: "Fixed before we wrote", postmortem: "What happened" });
      expect(incident.resolvedAt).toBeDefined();
      expect(timestampDate(incident.resolvedAt!)).toEqual(timestampDate(incident.createdAt!));
      expect(incident.postmortem).toBe("What happened");
    });

    it("requires the incident, its page, title, status and message", async () => {
      const { pageId } = await newPage();
      await refused(() => client.createStatusPageIncident({}), Code.InvalidArgument, "incident: is required");
      await refused(() => createIncident({ title: "t", status: "identified", message: "m" }), Code.InvalidArgument, "incident.pageId: is required");
      await refused(() => createIncident({ pageId, status: "identified", message: "m" }), Code.InvalidArgument, "incident.title: is required");
      await refused(() => createIncident({ pageId, title: "t", message: "m" }), Code.InvalidArgument, "incident.status: is required");
      await refused(() => createIncident({ pageId, title: "t", status: "identified" }), Code.InvalidArgument, "incident.message: is required");
      await refused(() => createIncident({ pageId, title: "t", status: "fixed", message: "m" }), Code.InvalidArgument, "incident.status: must be one of investigating, identified, monitoring, resolved");
      await refused(() => createIncident({ pageId: UNKNOWN_ID, title: "t", status: "identified", message: "m" }), Code.NotFound, `status page ${UNKNOWN_ID} not found`);
    });

    it("takes a title of 1 to 256 characters on one line", async () => {
      const { pageId } = await newPage();
      expect((await createIncident({ pageId, title: "t".repeat(256), status: "identified", message: "m" })).title).toHaveLength(256);
      await refused(() => createIncident({ pageId, title: "t".repeat(257), status: "identified", message: "m" }), Code.InvalidArgument, "incident.title: must be at most 256 characters");
      await refused(() => createIncident({ pageId, title: "", status: "identified", message: "m" }), Code.InvalidArgument, "incident.title: must not be empty");
      await refused(() => createIncident({ pageId, title: "a\nb", status: "identified", message: "m" }), Code.InvalidArgument, "incident.title: must not contain control characters");
    });

    it("takes a message of 1 to 10000 characters, line breaks included", async () => {
      const { pageId } = await newPage();
      const long = `line\n${"m".repeat(9995)}`;
      expect((await createIncident({ pageId, title: "t", status: "identified", message: long })).updates[0]!.message).toBe(long);
      await refused(() => createIncident({ pageId, title: "t", status: "identified", message: `${long}m` }), Code.InvalidArgument, "incident.message: must be at most 10000 characters");
      await refused(() => createIncident({ pageId, title: "t", status: "identified", message: "" }), Code.InvalidArgument, "incident.message: must not be empty");
    });

    it("names at most 25 components, each of the page and once, with a known impact", async () => {
      const { pageId } = await newPage();
      const many = await Promise.all(
        Array.from({ length: 26 }, async (_, i) => (await client.createStatusPageComponent({ component: { pageId, type: "static", name: `c${i}` } })).component!.id),
      );
      const named = (ids: string[]) => ids.map((componentId) => ({ componentId, impact: "major_outage" }));
      expect((await createIncident({ pageId, title: "t", status: "identified", message: "m", components: named(many.slice(0, 25)) })).components).toHaveLength(25);
      await refused(() => createIncident({ pageId, title: "t", status: "identified", message: "m", components: named(many) }), Code.InvalidArgument, "incident.components: must have at most 25 entries");
      await refused(
        () => createIncident({ pageId, title: "t", status: "identified", message: "m", components: named([many[0]!, many[0]!]) }),
        Code.InvalidArgument,
        `incident.components[1].componentId: must not repeat component ${many[0]}`,
      );
      await refused(
        () => createIncident({ pageId, title: "t", status: "identified", message: "m", components: [{ componentId: many[0]!, impact: "operational" }] }),
        Code.InvalidArgument,
        "incident.components[0].impact: must be one of degraded_performance, partial_outage, major_outage",
      );
      const other = await newPage();
      await refused(
        () => createIncident({ pageId, title: "t", status: "identified", message: "m", components: named([many[0]!, other.web]) }),
        Code.InvalidArgument,
        `incident.components[1].componentId: no component ${other.web} on this page`,
      );
    });

    it("keeps a postmortem for resolved incidents only, of at most 50000 characters", async () => {
      const { pageId } = await newPage();
      await refused(() => createIncident({ pageId, title: "t", status: "monitoring", message: "m", postmortem: "p" }), Code.InvalidArgument, "incident.postmortem: only a resolved incident can have one");
      expect((await createIncident({ pageId, title: "t", status: "resolved", message: "m", postmortem: "p".repeat(50_000) })).postmortem).toHaveLength(50_000);
      await refused(() => createIncident({ pageId, title: "t", status: "resolved", message: "m", postmortem: "p".repeat(50_001) }), Code.InvalidArgument, "incident.postmortem: must be at most 50000 characters");
    });

    it("tells of an automatic incident of a monitor on the page, once per page, and keeps it internal only then", async () => {
      const page = await newPage();
      const automatic = await monitorIncident();
      await refused(() => createIncident({ pageId: page.pageId, title: "t", status: "identified", message: "m", internal: true }), Code.InvalidArgument, "incident.internal: only an incident naming monitorIncidentId can be kept internal");
      await refused(
        () => createIncident({ pageId: page.pageId, title: "t", status: "identified", message: "m", monitorIncidentId: UNKNOWN_ID }),
        Code.InvalidArgument,
        `incident.monitorIncidentId: no incident ${UNKNOWN_ID} of a monitor shown on this page`,
      );
      const told = await createIncident({ pageId: page.pageId, title: "API down", status: "identified", message: "m", monitorIncidentId: automatic.id, internal: true });
      expect(told).toMatchObject({ monitorIncidentId: automatic.id, internal: true });
      await refused(
        () => createIncident({ pageId: page.pageId, title: "again", status: "identified", message: "m", monitorIncidentId: automatic.id }),
        Code.AlreadyExists,
        `incident.monitorIncidentId: another incident of this page already tells of ${automatic.id}`,
      );
      // A page without the monitor cannot tell of its incident.
      const { id: bare } = (await client.createStatusPage({ statusPage: { title: "Bare", slug: `incidents-${++pages}` } })).statusPage!;
      await refused(() => createIncident({ pageId: bare, title: "t", status: "identified", message: "m", monitorIncidentId: automatic.id }), Code.InvalidArgument, "incident.monitorIncidentId: no incident");
    });
  });

  describe("updates", () => {
    it("moves the incident to each update's status, newest first, resolving and reopening it", async () => {
      const { pageId } = await newPage();
      const incident = await createIncident({ pageId, title: "t", status: "investigating", message: "one" });
      const identified = (await client.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "identified", message: "two" })).incident!;
      expect(identified.status).toBe("identified");
      const resolved = (await client.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "resolved", message: "three" })).incident!;
      expect(resolved.status).toBe("resolved");
      expect(timestampDate(resolved.resolvedAt!)).toEqual(timestampDate(resolved.updates[0]!.createdAt!));
      expect(resolved.updates.map((u) => [u.status, u.message])).toEqual([
        ["resolved", "three"],
        ["identified", "two"],
        ["investigating", "one"],
      ]);
      const reopened = (await client.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "monitoring", message: "four" })).incident!;
      expect(reopened.status).toBe("monitoring");
      expect(reopened.resolvedAt).toBeUndefined();
    });

    it("refuses a bad status or message, an unknown incident, and reopening an incident with a postmortem", async () => {
      const { pageId } = await newPage();
      const incident = await createIncident({ pageId, title: "t", status: "resolved", message: "m", postmortem: "p" });
      await refused(() => client.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "", message: "m" }), Code.InvalidArgument, "status: must be one of");
      await refused(() => client.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "resolved", message: "" }), Code.InvalidArgument, "message: must not be empty");
      await refused(() => client.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "resolved", message: "m".repeat(10_001) }), Code.InvalidArgument, "message: must be at most 10000 characters");
      await refused(() => client.addStatusPageIncidentUpdate({ incidentId: "", status: "resolved", message: "m" }), Code.InvalidArgument, "incidentId: is required");
      await refused(() => client.addStatusPageIncidentUpdate({ incidentId: UNKNOWN_ID, status: "resolved", message: "m" }), Code.NotFound, `status page incident ${UNKNOWN_ID} not found`);
      await refused(() => client.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "monitoring", message: "m" }), Code.InvalidArgument, "status: must be resolved while the incident has a postmortem");
      expect((await client.addStatusPageIncidentUpdate({ incidentId: incident.id, status: "resolved", message: "addendum" })).incident!.updates).toHaveLength(2);
    });

    it("keeps at most 200 updates, counted under concurrent writers", async () => {
      const { pageId } = await newPage();
      const { id } = await createIncident({ pageId, title: "t", status: "investigating", message: "0" });
      // 199 more, ten at a time: the row lock serialises them, and the count never passes the limit.
      for (let i = 1; i < 200; i += 10) {
        await Promise.all(Array.from({ length: Math.min(10, 200 - i) }, (_, j) => client.addStatusPageIncidentUpdate({ incidentId: id, status: "monitoring", message: `${i + j}` })));
      }
      expect((await client.getStatusPageIncident({ id })).incident!.updates).toHaveLength(200);
      await refused(() => client.addStatusPageIncidentUpdate({ incidentId: id, status: "resolved", message: "one too many" }), Code.InvalidArgument, "incidentId: the incident already has 200 updates");
    });
  });

  describe("update and delete", () => {
    it("changes title, postmortem, internal and components, by mask or by presence", async () => {
      const page = await newPage();
      const automatic = await monitorIncident();
      const incident = await createIncident({ pageId: page.pageId, title: "t", status: "resolved", message: "m", monitorIncidentId: automatic.id, components: [{ componentId: page.web, impact: "major_outage" }] });
      const renamed = (await client.updateStatusPageIncident({ id: incident.id, incident: { title: "Renamed", postmortem: "## Why\nA cable" } })).incident!;
      expect(renamed).toMatchObject({ title: "Renamed", postmortem: "## Why\nA cable", internal: false });
      expect(renamed.components).toHaveLength(1);
      const moved = (await client.updateStatusPageIncident({ id: incident.id, incident: { components: [{ componentId: page.db, impact: "degraded_performance" }], internal: true } })).incident!;
      expect(moved.components.map((c) => [c.componentId, c.impact])).toEqual([[page.db, "degraded_performance"]]);
      expect(moved.internal).toBe(true);
      const cleared = (await client.updateStatusPageIncident({ id: incident.id, incident: {}, updateMask: mask("postmortem", "components", "internal") })).incident!;
      expect(cleared).toMatchObject({ postmortem: "", internal: false, components: [], title: "Renamed" });
      expect(cleared.updates).toHaveLength(1);
    });

    it("refuses what breaks a rule, and changes to page or automatic incident", async () => {
      const page = await newPage();
      const incident = await createIncident({ pageId: page.pageId, title: "t", status: "identified", message: "m" });
      await refused(() => client.updateStatusPageIncident({ id: incident.id, incident: { postmortem: "p" } }), Code.InvalidArgument, "incident.postmortem: only a resolved incident can have one");
      await refused(() => client.updateStatusPageIncident({ id: incident.id, incident: { internal: true } }), Code.InvalidArgument, "incident.internal: only an incident naming monitorIncidentId");
      await refused(() => client.updateStatusPageIncident({ id: incident.id, incident: { title: "" }, updateMask: mask("title") }), Code.InvalidArgument, "incident.title: must not be empty");
      await refused(() => client.updateStatusPageIncident({ id: incident.id, incident: { components: [{ componentId: UNKNOWN_ID, impact: "major_outage" }] } }), Code.InvalidArgument, `incident.components[0].componentId: no component ${UNKNOWN_ID} on this page`);
      await refused(() => client.updateStatusPageIncident({ id: incident.id, incident: { pageId: UNKNOWN_ID } }), Code.InvalidArgument, "incident.pageId: cannot change");
      await refused(() => client.updateStatusPageIncident({ id: incident.id, incident: { monitorIncidentId: UNKNOWN_ID } }), Code.InvalidArgument, "incident.monitorIncidentId: cannot change");
      await refused(() => client.updateStatusPageIncident({ id: incident.id, updateMask: mask("status") }), Code.InvalidArgument, "updateMask: names status");
      await refused(() => client.updateStatusPageIncident({ id: UNKNOWN_ID, incident: { title: "x" } }), Code.NotFound, "not found");
    });

    it("deletes an incident with its updates; deleting a component or the monitor keeps what people wrote", async () => {
      const page = await newPage();
      const automatic = await monitorIncident();
      const kept = await createIncident({ pageId: page.pageId, title: "kept", status: "identified", message: "m", monitorIncidentId: automatic.id, components: [{ componentId: page.web, impact: "major_outage" }] });
      const gone = await createIncident({ pageId: page.pageId, title: "gone", status: "identified", message: "m" });
      expect(await client.deleteStatusPageIncident({ id: gone.id })).toMatchObject({ success: true });
      await refused(() => client.getStatusPageIncident({ id: gone.id }), Code.NotFound, "not found");
      expect(await api.db.prisma.statusPageIncidentUpdate.count({ where: { incidentId: gone.id } })).toBe(0);
      await client.deleteStatusPageComponent({ pageId: page.pageId, id: page.web });
      await api.db.prisma.incident.delete({ where: { id: automatic.id } });
      expect((await client.getStatusPageIncident({ id: kept.id })).incident).toMatchObject({ title: "kept", components: [], monitorIncidentId: "" });
      await client.deleteStatusPage({ id: page.pageId });
      expect(await api.db.prisma.statusPageIncident.count({ where: { pageId: page.pageId } })).toBe(0);
    });

    it("records every write in the audit log", async () => {
      const { pageId } = await newPage();
      const { id } = await createIncident({ pageId, title: "audited", status: "identified", message: "m" });
      await client.addStatusPageIncidentUpdate({ incidentId: id, status: "resolved", message: "done" });
      await client.updateStatusPageIncident({ id, incident: { postmortem: "p" } });
      await client.deleteStatusPageIncident({ id });
      const entries = await api.db.prisma.auditEntry.findMany({ where: { targetId: id }, orderBy: { at: "asc" } });
      expect(entries.map((e) => [e.method.split("/")[1], e.targetKind])).toEqual([
        ["CreateStatusPageIncident", "StatusPageIncident"],
        ["AddStatusPageIncidentUpdate", "StatusPageIncidentUpdate"],
        ["UpdateStatusPageIncident", "StatusPageIncident"],
        ["DeleteStatusPageIncident", "StatusPageIncident"],
      ]);
    });

    it("lists a page's incidents newest first, a page at a time", async () => {
      const { pageId } = await newPage();
      for (const title of ["a", "b", "c"]) await createIncident({ pageId, title, status: "identified", message: "m" });
      const first = await client.listStatusPageIncidents({ pageId, limit: 2 });
      expect(first.totalSize).toBe(3);
      expect(first.incidents.map((i) => i.title)).toEqual(["c", "b"]);
      expect((await client.listStatusPageIncidents({ pageId, limit: 2, offset: 2 })).incidents.map((i) => i.title)).toEqual(["a"]);
      await refused(() => client.listStatusPageIncidents({ pageId, limit: 101 }), Code.InvalidArgument, "limit: must be an integer from 1 to 100");
    });
  });
});
