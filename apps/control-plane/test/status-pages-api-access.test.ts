import { Code } from "@connectrpc/connect";
import { Periodicity } from "@vigil/proto";
import { BACKENDS, startTestApi, type Protocol, type TestApi, type WorkspaceKeys } from "./support/api";
import { reflectedServices } from "./support/reflection";
import { codeOf } from "./support/codes";

describe.each(BACKENDS)("StatusPageService access on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let other: WorkspaceKeys;
  let ids: { pageId: string; componentId: string; groupId: string; incidentId: string };
  let created = 0;

  /** Everything a refused call could have written. */
  const written = async () => ({
    pages: await api.db.prisma.statusPage.findMany({ orderBy: { id: "asc" } }),
    components: await api.db.prisma.statusPageComponent.findMany({ orderBy: { id: "asc" } }),
    groups: await api.db.prisma.statusPageComponentGroup.findMany({ orderBy: { id: "asc" } }),
    incidents: await api.db.prisma.statusPageIncident.findMany({ orderBy: { id: "asc" }, include: { updates: true, components: true } }),
  });

  /** A page with a group and a component in it, of the workspace of `key`. */
  async function seed(key: string) {
    const c = api.statusPageClient(key);
    const pageId = (await c.createStatusPage({ statusPage: { title: "Acme", slug: `access-${++created}` } })).statusPage!.id;
    const groupId = (await c.createStatusPageComponentGroup({ group: { pageId, name: "Core" } })).group!.id;
    const componentId = (await c.createStatusPageComponent({ component: { pageId, type: "static", groupId } })).component!.id;
    const incident = { pageId, title: "Slow", status: "investigating", message: "Looking", components: [{ componentId, impact: "partial_outage" }] };
    const incidentId = (await c.createStatusPageIncident({ incident })).incident!.id;
    return { pageId, componentId, groupId, incidentId };
  }

  beforeAll(async () => {
    api = await startTestApi(backend);
    ws = await api.workspace();
    other = await api.workspace();
    ids = await seed(ws.write.key);
  });
  afterAll(() => api.close());

  const mutations = (key: string | undefined, { pageId, componentId, groupId, incidentId } = ids) => {
    const c = api.statusPageClient(key);
    return {
      CreateStatusPage: () => c.createStatusPage({ statusPage: { title: "t", slug: `access-${++created}` } }),
      UpdateStatusPage: () => c.updateStatusPage({ id: pageId, statusPage: { title: "renamed" } }),
      PublishStatusPage: () => c.publishStatusPage({ id: pageId }),
      UnpublishStatusPage: () => c.unpublishStatusPage({ id: pageId }),
      CreateStatusPageComponent: () => c.createStatusPageComponent({ component: { pageId, type: "static" } }),
      UpdateStatusPageComponent: () => c.updateStatusPageComponent({ pageId, id: componentId, component: { name: "x" } }),
      CreateStatusPageComponentGroup: () => c.createStatusPageComponentGroup({ group: { pageId, name: "g" } }),
      UpdateStatusPageComponentGroup: () => c.updateStatusPageComponentGroup({ pageId, id: groupId, group: { name: "g2" } }),
      CreateStatusPageIncident: () => c.createStatusPageIncident({ incident: { pageId, title: "t", status: "identified", message: "m" } }),
      AddStatusPageIncidentUpdate: () => c.addStatusPageIncidentUpdate({ incidentId, status: "monitoring", message: "m" }),
      UpdateStatusPageIncident: () => c.updateStatusPageIncident({ id: incidentId, incident: { title: "t2" } }),
      DeleteStatusPageIncident: () => c.deleteStatusPageIncident({ id: incidentId }),
      DeleteStatusPageComponent: () => c.deleteStatusPageComponent({ pageId, id: componentId }),
      DeleteStatusPageComponentGroup: () => c.deleteStatusPageComponentGroup({ pageId, id: groupId }),
      DeleteStatusPage: () => c.deleteStatusPage({ id: pageId }),
    };
  };
  const reads = (key: string | undefined, { pageId, componentId, groupId, incidentId } = ids) => {
    const c = api.statusPageClient(key);
    return {
      GetStatusPage: () => c.getStatusPage({ id: pageId }),
      ListStatusPages: () => c.listStatusPages({}),
      GetStatusPageComponent: () => c.getStatusPageComponent({ pageId, id: componentId }),
      ListStatusPageComponents: () => c.listStatusPageComponents({ pageId }),
      GetStatusPageComponentGroup: () => c.getStatusPageComponentGroup({ pageId, id: groupId }),
      ListStatusPageComponentGroups: () => c.listStatusPageComponentGroups({ pageId }),
      ListStatusPageIncidents: () => c.listStatusPageIncidents({ pageId }),
      GetStatusPageIncident: () => c.getStatusPageIncident({ id: incidentId }),
    };
  };

  it.each(["write", "legacy"] as const)("lets a %s key call every method", async (kind) => {
    const own = await seed(ws.write.key);
    for (const [method, call] of Object.entries({ ...reads(ws[kind].key, own), ...mutations(ws[kind].key, own) })) {
      expect([method, await codeOf(call())]).toEqual([method, "ok"]);
    }
  });

  it("answers not_found for another workspace's page, component and group ids on every method, and writes nothing", async () => {
    const theirs = await seed(other.write.key);
    const before = await written();
    const calls = { ...reads(ws.write.key, theirs), ...mutations(ws.write.key, theirs) };
    delete (calls as Partial<typeof calls>).CreateStatusPage;
    delete (calls as Partial<typeof calls>).ListStatusPages;
    for (const [method, call] of Object.entries(calls)) {
      expect([method, await codeOf(call())]).toEqual([method, Code.NotFound]);
    }
    expect(await written()).toEqual(before);
    expect((await api.statusPageClient(ws.read.key).listStatusPages({ limit: 100 })).statusPages.map((p) => p.id)).not.toContain(theirs.pageId);
  });

  it("answers not_found for a component or group of this workspace under another of its pages", async () => {
    const second = await seed(ws.write.key);
    const mixed = { ...ids, pageId: second.pageId };
    const c = api.statusPageClient(ws.write.key);
    expect(await codeOf(c.getStatusPageComponent({ pageId: mixed.pageId, id: mixed.componentId }))).toBe(Code.NotFound);
    expect(await codeOf(c.getStatusPageComponentGroup({ pageId: mixed.pageId, id: mixed.groupId }))).toBe(Code.NotFound);
  });

  it("refuses a monitor of another workspace in a component", async () => {
    const monitor = await api
      .client(other.write.key)
      .createTCPMonitor({ monitor: { name: "theirs", uri: "example.com:443", periodicity: Periodicity.PERIODICITY_5M } });
    const call = api.statusPageClient(ws.write.key).createStatusPageComponent({ component: { pageId: ids.pageId, type: "monitor", monitorId: monitor.monitor!.id } });
    expect(await codeOf(call)).toBe(Code.InvalidArgument);
  });

  it.each(["connect", "grpc", "grpc-web"] as Protocol[])("is served over %s", async (protocol) => {
    const c = api.statusPageClient(ws.read.key, protocol);
    expect((await c.getStatusPage({ id: ids.pageId })).statusPage!.id).toBe(ids.pageId);
  });

  it("is listed by gRPC server reflection", async () => {
    const names = await reflectedServices(api.baseUrl);
    expect(names).toContain("status_page.v1.StatusPageService");
  });
});
