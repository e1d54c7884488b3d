import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { Code, type Client } from "@connectrpc/connect";
import { MonitorService, Periodicity } from "@vigil/proto";
import type { StatusPageComponent, StatusPageService } from "@vigil/proto/status-page";
import { StatusPageRepository } from "../src/status-pages/repository";
import { BACKENDS, startTestApi, type TestApi } from "./support/api";
import { expectRefused } from "./support/codes";

const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });
type ComponentInit = Partial<Omit<StatusPageComponent, "$typeName" | "$unknown" | "createdAt" | "updatedAt">>;
const UNKNOWN_ID = "0190f000-0000-7000-8000-000000000000";

describe.each(BACKENDS)("status page components and groups on %s", (backend) => {
  let api: TestApi;
  let client: Client<typeof StatusPageService>;
  let otherClient: Client<typeof StatusPageService>;
  let monitors: Client<typeof MonitorService>;
  let monitorId: string;
  let foreignMonitorId: string;
  let pages = 0;

  const newMonitor = async (c: Client<typeof MonitorService>, name = "m") =>
    (await c.createTCPMonitor({ monitor: { name, uri: "example.com:443", periodicity: Periodicity.PERIODICITY_5M } })).monitor!.id;

  beforeAll(async () => {
    api = await startTestApi(backend);
    const keys = await api.workspace();
    const other = await api.workspace();
    client = api.statusPageClient(keys.write.key);
    otherClient = api.statusPageClient(other.write.key);
    monitors = api.client(keys.write.key);
    monitorId = await newMonitor(monitors, "api");
    foreignMonitorId = await newMonitor(api.client(other.write.key), "theirs");
  });
  afterAll(() => api.close());

  const newPage = async (c = client) => (await c.createStatusPage({ statusPage: { title: "Acme", slug: `components-${++pages}` } })).statusPage!.id;
  const createComponent = async (component: ComponentInit, c = client) => (await c.createStatusPageComponent({ component })).component!;
  const createGroup = async (pageId: string, name = "Core", c = client) => (await c.createStatusPageComponentGroup({ group: { pageId, name } })).group!;
  const snapshot = async () => ({
    components: await api.db.prisma.statusPageComponent.findMany({ orderBy: { id: "asc" } }),
    groups: await api.db.prisma.statusPageComponentGroup.findMany({ orderBy: { id: "asc" } }),
  });

  /** The call fails with this code and message, and writes nothing. */
  const refused = (call: () => Promise<unknown>, code: Code, message: string) => expectRefused(snapshot, call, code, message);

  describe("components: create", () => {
    it("stores a monitor component and a static one with their defaults", async () => {
      const pageId = await newPage();
      const monitor = await createComponent({ pageId, type: "monitor", monitorId });
      expect(monitor).toMatchObject({ pageId, type: "monitor", monitorId, name: "", description: "", order: 0, groupId: "", groupOrder: 0 });
      expect(monitor.id).toMatch(/\S/);
      const line = await createComponent({ pageId, type: "static", name: "Website", description: "d", order: 3, groupOrder: -2 });
      expect(line).toMatchObject({ type: "static", monitorId: "", name: "Website", description: "d", order: 3, groupOrder: -2 });
      expect((await client.getStatusPageComponent({ pageId, id: line.id })).component).toEqual(line);
      expect((await api.db.prisma.statusPageComponent.findUniqueOrThrow({ where: { id: line.id } })).position).toBe(3);
    });

    it("requires the component, its page and its type", async () => {
      const pageId = await newPage();
      await refused(() => client.createStatusPageComponent({}), Code.InvalidArgument, "component: is required");
      await refused(() => createComponent({ type: "static" }), Code.InvalidArgument, "component.pageId: is required");
      await refused(() => createComponent({ pageId }), Code.InvalidArgument, "component.type: is required");
      await refused(() => createComponent({ pageId, type: "chart" }), Code.InvalidArgument, "component.type: must be one of monitor, static");
    });

    it("needs a monitor of the workspace for a monitor component, and refuses one for a static component", async () => {
      const pageId = await newPage();
      await refused(() => createComponent({ pageId, type: "monitor" }), Code.InvalidArgument, "component.monitorId: is required when type is monitor");
      await refused(() => createComponent({ pageId, type: "monitor", monitorId: UNKNOWN_ID }), Code.InvalidArgument, `component.monitorId: no monitor ${UNKNOWN_ID}`);
      await refused(() => createComponent({ pageId, type: "monitor", monitorId: foreignMonitorId }), Code.InvalidArgument, "component.monitorId: no monitor");
      await refused(() => createComponent({ pageId, type: "static", monitorId }), Code.InvalidArgument, "component.monitorId: must be empty when type is static");
    });

    it("takes a name of at most 256 and a description of at most 1024 characters", async () => {
      const pageId = await newPage();
      expect((await createComponent({ pageId, type: "static", name: "n".repeat(256), description: "d".repeat(1024) })).name).toHaveLength(256);
      await refused(() => createComponent({ pageId, type: "static", name: "n".repeat(257) }), Code.InvalidArgument, "component.name: must be at most 256 characters");
      await refused(() => createComponent({ pageId, type: "static", description: "d".repeat(1025) }), Code.InvalidArgument, "component.description: must be at most 1024 characters");
    });

    it("takes the whole int32 range as order and groupOrder", async () => {
      const pageId = await newPage();
      const c = await createComponent({ pageId, type: "static", order: 2 ** 31 - 1, groupOrder: -(2 ** 31) });
      expect(c).toMatchObject({ order: 2 ** 31 - 1, groupOrder: -(2 ** 31) });
    });

    it("takes only a group of the same page", async () => {
      const pageId = await newPage();
      const otherPageGroup = await createGroup(await newPage());
      const group = await createGroup(pageId);
      expect((await createComponent({ pageId, type: "static", groupId: group.id })).groupId).toBe(group.id);
      await refused(() => createComponent({ pageId, type: "static", groupId: otherPageGroup.id }), Code.InvalidArgument, `component.groupId: no group ${otherPageGroup.id} on this page`);
      await refused(() => createComponent({ pageId, type: "static", groupId: UNKNOWN_ID }), Code.InvalidArgument, "component.groupId");
    });

    it("answers not_found for a page of another workspace", async () => {
      const theirs = await newPage(otherClient);
      await refused(() => createComponent({ pageId: theirs, type: "static" }), Code.NotFound, `status page ${theirs} not found`);
    });

    it("names the reference a concurrent delete removed between the service's check and the write", async () => {
      // The service found them; then another request deleted them: the database's foreign keys refuse the write.
      const repo = new StatusPageRepository(api.db.prisma);
      const pageId = await newPage();
      const gone = await newMonitor(monitors, "deleted meanwhile");
      await monitors.deleteMonitor({ id: gone });
      const write = { type: "monitor" as const, monitorId: gone, name: "", description: "", order: 0, groupId: "", groupOrder: 0 };
      await expect(repo.components.create(pageId, write)).rejects.toMatchObject({ violations: [{ field: "component.monitorId", rule: `no monitor ${gone} in this workspace` }] });
      const line = await createComponent({ pageId, type: "static" });
      const group = await createGroup(pageId);
      await client.deleteStatusPageComponentGroup({ pageId, id: group.id });
      await expect(repo.components.update(pageId, line.id, { groupId: group.id })).rejects.toMatchObject({
        violations: [{ field: "component.groupId", rule: `no group ${group.id} on this page` }],
      });
      await client.deleteStatusPage({ id: pageId });
      await expect(repo.components.create(pageId, { ...write, type: "static", monitorId: "" })).rejects.toMatchObject({ code: Code.NotFound });
    });
  });

  describe("components: get, list, update and delete", () => {
    it("lists a page's components in display order: by order, ties by creation", async () => {
      const pageId = await newPage();
      const b = await createComponent({ pageId, type: "static", name: "b", order: 2 });
      const a = await createComponent({ pageId, type: "static", name: "a", order: 1 });
      const c = await createComponent({ pageId, type: "static", name: "c", order: 2 });
      const d = await createComponent({ pageId, type: "static", name: "d", order: -5 });
      await createComponent({ pageId: await newPage(), type: "static", name: "elsewhere" });
      const list = await client.listStatusPageComponents({ pageId });
      expect(list.components.map((x) => x.name)).toEqual(["d", "a", "b", "c"]);
      expect(list.totalSize).toBe(4);
      const window = await client.listStatusPageComponents({ pageId, limit: 2, offset: 1 });
      expect(window.components.map((x) => x.id)).toEqual([a.id, b.id]);
      expect(window.totalSize).toBe(4);
      expect(c.id).not.toBe(d.id);
      await refused(() => client.listStatusPageComponents({ pageId, limit: 101 }), Code.InvalidArgument, "limit");
      await refused(() => client.listStatusPageComponents({ pageId: "" }), Code.InvalidArgument, "pageId: is required");
    });

    it("updates partially without updateMask, and exactly the named fields with one", async () => {
      const pageId = await newPage();
      const group = await createGroup(pageId);
      const c = await createComponent({ pageId, type: "static", name: "Web", description: "old", order: 4, groupId: group.id, groupOrder: 2 });
      const renamed = (await client.updateStatusPageComponent({ pageId, id: c.id, component: { name: "Website", order: 0 } })).component!;
      expect(renamed).toMatchObject({ name: "Website", description: "old", order: 0, groupId: group.id, groupOrder: 2 });
      const masked = (
        await client.updateStatusPageComponent({ pageId, id: c.id, component: { name: "ignored", description: "new" }, updateMask: mask("description", "group_id", "groupOrder") })
      ).component!;
      expect(masked).toMatchObject({ name: "Website", description: "new", order: 0, groupId: "", groupOrder: 0 });
      expect((await client.getStatusPageComponent({ pageId, id: c.id })).component).toEqual(masked);
    });

    it("changes a monitor component's monitor within the workspace only", async () => {
      const pageId = await newPage();
      const c = await createComponent({ pageId, type: "monitor", monitorId });
      const second = await newMonitor(monitors, "second");
      expect((await client.updateStatusPageComponent({ pageId, id: c.id, component: { monitorId: second } })).component!.monitorId).toBe(second);
      await refused(() => client.updateStatusPageComponent({ pageId, id: c.id, component: { monitorId: foreignMonitorId } }), Code.InvalidArgument, "component.monitorId: no monitor");
      await refused(() => client.updateStatusPageComponent({ pageId, id: c.id, updateMask: mask("monitorId") }), Code.InvalidArgument, "component.monitorId: is required when type is monitor");
      const line = await createComponent({ pageId, type: "static" });
      await refused(() => client.updateStatusPageComponent({ pageId, id: line.id, component: { monitorId } }), Code.InvalidArgument, "component.monitorId: must be empty when type is static");
    });

    it("refuses to change pageId or type, and accepts the same values repeated", async () => {
      const pageId = await newPage();
      const otherPage = await newPage();
      const c = await createComponent({ pageId, type: "monitor", monitorId });
      await refused(() => client.updateStatusPageComponent({ pageId, id: c.id, component: { pageId: otherPage } }), Code.InvalidArgument, "component.pageId: cannot change");
      await refused(() => client.updateStatusPageComponent({ pageId, id: c.id, component: { type: "static", monitorId: "" } }), Code.InvalidArgument, "component.type: cannot change");
      await refused(() => client.updateStatusPageComponent({ pageId, id: c.id, updateMask: mask("type") }), Code.InvalidArgument, "component.type: cannot change");
      const same = (await client.updateStatusPageComponent({ pageId, id: c.id, component: { pageId, type: "monitor", name: "API" } })).component!;
      expect(same).toMatchObject({ pageId, type: "monitor", name: "API" });
    });

    it("refuses an updateMask naming a read-only or unknown field", async () => {
      const pageId = await newPage();
      const c = await createComponent({ pageId, type: "static" });
      for (const path of ["id", "created_at", "status"]) {
        await refused(() => client.updateStatusPageComponent({ pageId, id: c.id, updateMask: mask(path) }), Code.InvalidArgument, `updateMask: names ${path}`);
      }
    });

    it("treats a page and component id that do not belong together as not_found", async () => {
      const pageId = await newPage();
      const otherPage = await newPage();
      const c = await createComponent({ pageId, type: "static" });
      await refused(() => client.getStatusPageComponent({ pageId: otherPage, id: c.id }), Code.NotFound, "not found");
      await refused(() => client.updateStatusPageComponent({ pageId: otherPage, id: c.id, component: { name: "x" } }), Code.NotFound, "not found");
      await refused(() => client.deleteStatusPageComponent({ pageId: otherPage, id: c.id }), Code.NotFound, "not found");
      await refused(() => client.getStatusPageComponent({ pageId, id: "" }), Code.InvalidArgument, "id: is required");
    });

    it("deletes a component; a second delete is not_found", async () => {
      const pageId = await newPage();
      const c = await createComponent({ pageId, type: "static" });
      expect(await client.deleteStatusPageComponent({ pageId, id: c.id })).toMatchObject({ success: true });
      await refused(() => client.getStatusPageComponent({ pageId, id: c.id }), Code.NotFound, "not found");
      await refused(() => client.deleteStatusPageComponent({ pageId, id: c.id }), Code.NotFound, "not found");
    });

    it("removes a monitor's components when the monitor is deleted", async () => {
      const pageId = await newPage();
      const doomed = await newMonitor(monitors, "doomed");
      const c = await createComponent({ pageId, type: "monitor", monitorId: doomed });
      const kept = await createComponent({ pageId, type: "monitor", monitorId });
      await monitors.deleteMonitor({ id: doomed });
      await refused(() => client.getStatusPageComponent({ pageId, id: c.id }), Code.NotFound, "not found");
      expect((await client.listStatusPageComponents({ pageId })).components.map((x) => x.id)).toEqual([kept.id]);
    });
  });

  describe("groups", () => {
    it("creates, gets, lists in creation order, and renames groups", async () => {
      const pageId = await newPage();
      const first = await createGroup(pageId, "Core");
      const second = await createGroup(pageId, "Edge");
      expect(first).toMatchObject({ pageId, name: "Core" });
      expect((await client.getStatusPageComponentGroup({ pageId, id: first.id })).group).toEqual(first);
      const list = await client.listStatusPageComponentGroups({ pageId });
      expect(list.groups.map((g) => g.id)).toEqual([first.id, second.id]);
      expect(list.totalSize).toBe(2);
      expect((await client.listStatusPageComponentGroups({ pageId, offset: 1, limit: 1 })).groups.map((g) => g.id)).toEqual([second.id]);
      const renamed = (await client.updateStatusPageComponentGroup({ pageId, id: first.id, group: { name: "Platform" } })).group!;
      expect(renamed.name).toBe("Platform");
      expect((await client.updateStatusPageComponentGroup({ pageId, id: first.id, group: { name: "again" }, updateMask: mask("name") })).group!.name).toBe("again");
      expect((await client.updateStatusPageComponentGroup({ pageId, id: first.id, group: {} })).group!.name).toBe("again");
    });

    it("takes a name of 1 to 256 characters", async () => {
      const pageId = await newPage();
      expect((await createGroup(pageId, "n".repeat(256))).name).toHaveLength(256);
      const group = await createGroup(pageId, "n");
      await refused(() => createGroup(pageId, "n".repeat(257)), Code.InvalidArgument, "group.name: must be at most 256 characters");
      await refused(() => createGroup(pageId, ""), Code.InvalidArgument, "group.name: must not be empty");
      await refused(() => client.createStatusPageComponentGroup({ group: { pageId } }), Code.InvalidArgument, "group.name: is required");
      await refused(() => client.createStatusPageComponentGroup({}), Code.InvalidArgument, "group: is required");
      await refused(() => client.updateStatusPageComponentGroup({ pageId, id: group.id, updateMask: mask("name") }), Code.InvalidArgument, "group.name: must not be empty");
      await refused(() => client.updateStatusPageComponentGroup({ pageId, id: group.id, group: { name: "n".repeat(257) } }), Code.InvalidArgument, "group.name");
    });

    it("refuses to change pageId, and accepts it repeated", async () => {
      const pageId = await newPage();
      const group = await createGroup(pageId);
      const otherPage = await newPage();
      await refused(() => client.updateStatusPageComponentGroup({ pageId, id: group.id, group: { pageId: otherPage, name: "x" } }), Code.InvalidArgument, "group.pageId: cannot change");
      expect((await client.updateStatusPageComponentGroup({ pageId, id: group.id, group: { pageId, name: "x" } })).group!.name).toBe("x");
    });

    it("answers not_found for a group of another page or workspace, and for a page of another workspace", async () => {
      const pageId = await newPage();
      const group = await createGroup(pageId);
      const theirPage = await newPage(otherClient);
      const otherPage = await newPage();
      await refused(() => client.getStatusPageComponentGroup({ pageId: otherPage, id: group.id }), Code.NotFound, "not found");
      await refused(() => createGroup(theirPage), Code.NotFound, `status page ${theirPage} not found`);
      await refused(() => client.listStatusPageComponentGroups({ pageId: theirPage }), Code.NotFound, "not found");
    });

    it("deleting a group leaves its components on the page, ungrouped", async () => {
      const pageId = await newPage();
      const group = await createGroup(pageId);
      const c = await createComponent({ pageId, type: "static", groupId: group.id, groupOrder: 1 });
      expect(await client.deleteStatusPageComponentGroup({ pageId, id: group.id })).toMatchObject({ success: true });
      expect((await client.getStatusPageComponent({ pageId, id: c.id })).component!.groupId).toBe("");
      await refused(() => client.getStatusPageComponentGroup({ pageId, id: group.id }), Code.NotFound, "not found");
      await refused(() => client.deleteStatusPageComponentGroup({ pageId, id: group.id }), Code.NotFound, "not found");
    });
  });
});
