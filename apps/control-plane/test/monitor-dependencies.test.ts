/**
 * Monitor dependencies (dependsOn) through the API, and their alerts end to end: results published to the
 * stream as agents do, stored by the pipeline, alerts delivered to a local webhook receiver.
 */
import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { MonitorStatus, Periodicity } from "@vigil/proto";
import type { ResultMessage } from "@vigil/queue";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { eventually } from "../../../test/eventually";
import { rejection } from "./support/codes";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";
import { channel } from "./support/channels";
import { checkResult, publishResults } from "./support/results";
import { dependencyTrees } from "../src/alerting/dependents";
import { splitIntoLanes } from "../src/results/lanes";

const periodicity = Periodicity.PERIODICITY_1M;
const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });


describe.each(BACKENDS)("monitor dependencies on %s", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let provider: ProviderServer;

  beforeAll(async () => {
    provider = await startProviderServer();
    api = await startTestApi(backend);
    ws = await api.workspace();
  });
  afterAll(async () => {
    await api.close();
    await provider.close();
  });

  const client = () => api.client(ws.write.key);
  const http = async (name: string, dependsOn: string[] = []) =>
    (await client().createHTTPMonitor({ monitor: { name, url: "https://api.example.com/health", periodicity, dependsOn } })).monitor!;

  describe("through the API", () => {
    it("every kind creates, reads, lists and updates dependsOn; a mask naming it alone clears it", async () => {
      const root = await http("root");
      const tcp = (await client().createTCPMonitor({ monitor: { name: "db", uri: "db.example.com:5432", periodicity, dependsOn: [root.id] } })).monitor!;
      const dns = (await client().createDNSMonitor({ monitor: { name: "dns", uri: "example.com", periodicity, dependsOn: [tcp.id, root.id] } })).monitor!;
      const beat = (await client().createHeartbeatMonitor({ monitor: { name: "job", dependsOn: [dns.id] } })).monitor!;
      const grpc = (await client().createGRPCMonitor({ monitor: { name: "api", uri: "api.example.com:443", periodicity, dependsOn: [tcp.id] } })).monitor!;
      expect([tcp.dependsOn, dns.dependsOn, beat.dependsOn, grpc.dependsOn]).toEqual([[root.id], [tcp.id, root.id], [dns.id], [tcp.id]]);
      expect((await client().getMonitor({ id: grpc.id })).monitor!.config).toMatchObject({ case: "grpc", value: { dependsOn: [tcp.id] } });
      expect((await client().getMonitor({ id: dns.id })).monitor!.config).toMatchObject({ case: "dns", value: { dependsOn: [tcp.id, root.id] } });
      expect((await client().getMonitor({ id: beat.id })).monitor!.config).toMatchObject({ case: "heartbeat", value: { dependsOn: [dns.id] } });
      const listed = await api.client(ws.read.key).listMonitors({ limit: 100 });
      expect(listed.tcpMonitors.find((m) => m.id === tcp.id)!.dependsOn).toEqual([root.id]);
      expect(listed.heartbeatMonitors.find((m) => m.id === beat.id)!.dependsOn).toEqual([dns.id]);
      expect(listed.grpcMonitors.find((m) => m.id === grpc.id)!.dependsOn).toEqual([tcp.id]);
      expect(listed.httpMonitors.find((m) => m.id === root.id)!.dependsOn).toEqual([]);

      // Without a mask, what is not sent stays; with one naming it, absent clears it.
      expect((await client().updateDNSMonitor({ id: dns.id, monitor: { description: "x" } })).monitor!.dependsOn).toEqual([tcp.id, root.id]);
      expect((await client().updateDNSMonitor({ id: dns.id, monitor: { dependsOn: [root.id] } })).monitor!.dependsOn).toEqual([root.id]);
      expect((await client().updateHeartbeatMonitor({ id: beat.id, monitor: {}, updateMask: mask("depends_on") })).monitor!.dependsOn).toEqual([]);
      expect((await client().updateGRPCMonitor({ id: grpc.id, monitor: { dependsOn: [dns.id, tcp.id] } })).monitor!.dependsOn).toEqual([dns.id, tcp.id]);
      expect((await client().updateHTTPMonitor({ id: root.id, monitor: { dependsOn: [beat.id] } })).monitor!.dependsOn).toEqual([beat.id]);
    });

    it("refuses a cycle on update with invalid_argument naming it, and writes nothing", async () => {
      const a = await http("a");
      const b = await http("b", [a.id]);
      const c = await http("c", [b.id]);
      const error = await rejection(client().updateHTTPMonitor({ id: a.id, monitor: { dependsOn: [c.id], description: "changed" } }));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.rawMessage).toBe(`monitor.dependsOn: makes a cycle: a (${a.id}) → c (${c.id}) → b (${b.id}) → a (${a.id})`);
      const stored = (await client().getMonitor({ id: a.id })).monitor!.config.value as { dependsOn: string[]; description: string };
      expect(stored).toMatchObject({ dependsOn: [], description: "" });
    });

    it("refuses the monitor itself, unknown ids, another workspace's monitor and more than 20", async () => {
      const mine = await http("mine");
      const other = await api.workspace();
      const theirs = (await api.client(other.write.key).createHTTPMonitor({ monitor: { name: "theirs", url: "https://example.com", periodicity } })).monitor!;
      const self = await rejection(client().updateHTTPMonitor({ id: mine.id, monitor: { dependsOn: [mine.id] } }));
      expect([self.code, self.rawMessage]).toEqual([Code.InvalidArgument, "monitor.dependsOn[0]: must not name the monitor itself"]);
      for (const id of ["no-such-monitor", theirs.id]) {
        const refused = await rejection(http("x", [mine.id, id]));
        expect([refused.code, refused.rawMessage]).toEqual([Code.InvalidArgument, `monitor.dependsOn[1]: names no monitor of this workspace: ${id}`]);
      }
      const many = await rejection(http("x", Array.from({ length: 21 }, (_, i) => `m${i}`)));
      expect([many.code, many.rawMessage]).toEqual([Code.InvalidArgument, "monitor.dependsOn: must have at most 20 entries"]);
      expect((await client().listMonitors({ limit: 100 })).httpMonitors.filter((m) => m.name === "x")).toEqual([]);
    });

    it("ingest lanes keep a dependency tree together, so that its failures are judged in one transaction, dependencies first", async () => {
      const [r1, r2, lone] = [await http("r1"), await http("r2"), await http("lone")];
      const mid = await http("mid", [r1.id]);
      const leaf = await http("leaf", [mid.id, r2.id]);
      const trees = await dependencyTrees(api.db.prisma, [r1.id, lone.id, mid.id, leaf.id]);
      // The top of each tree (the least id of several); monitors without dependencies are their own.
      expect(trees).toEqual(new Map([[mid.id, r1.id], [leaf.id, [r1.id, r2.id].sort()[0]!]]));
      const top = [r1.id, r2.id].sort()[0]!;
      const results = [r1, r2, mid, leaf].map((m) => checkResult(m.id, "hostA-ams", new Date().toISOString(), "error"));
      for (const count of [2, 3, 5]) {
        const lanes = splitIntoLanes(results, count, (id) => trees.get(id) ?? id);
        const laneOf = (id: string) => lanes.findIndex((lane) => lane.some((r) => r.monitorId === id));
        expect([laneOf(mid.id), laneOf(leaf.id)]).toEqual([laneOf(r1.id), laneOf(top)]);
      }
    });

    it("deleting a monitor drops it from its dependents' dependsOn", async () => {
      const a = await http("a");
      const b = await http("b");
      const c = await http("c", [a.id, b.id]);
      await client().deleteMonitor({ id: a.id });
      expect(((await client().getMonitor({ id: c.id })).monitor!.config.value as { dependsOn: string[] }).dependsOn).toEqual([b.id]);
    });
  });

  describe("alerts", () => {
    interface Envelope {
      type: string;
      data: { monitor: { id: string }; incident: { id: string } | null };
    }

    /** Monitors sharing one webhook channel (at `path`), each `name: dependsOn`. */
    async function tree(path: string, spec: [name: string, dependsOn: string[]][]) {
      const ids: Record<string, string> = {};
      for (const [name, deps] of spec) ids[name] = (await http(name, deps.map((d) => ids[d]!))).id;
      await api.notificationClient(ws.write.key).createNotification({
        notification: channel("webhook", { endpoint: `${provider.url}${path}`, headers: [] }, { monitorIds: Object.values(ids) }),
      });
      const received = () =>
        provider.received.filter((r) => r.url === path).map((r) => {
          const { type, data } = r.json as Envelope;
          return `${type} ${Object.keys(ids).find((name) => ids[name] === data.monitor.id)}`;
        });
      return { ids, received };
    }

    let minute = 0;
    const start = Date.now() - 120_000;
    /** Publishes one check per monitor (at the next minute) and waits until each monitor's status is what it said. */
    async function check(ids: Record<string, string>, statuses: Record<string, ResultMessage["status"]>) {
      const startedAt = new Date(start + ++minute * 1000).toISOString();
      await publishResults(api.redisPrefix, Object.entries(statuses).map(([name, status]) => checkResult(ids[name]!, "hostA-ams", startedAt, status)));
      const want = { success: MonitorStatus.ACTIVE, error: MonitorStatus.ERROR, degraded: MonitorStatus.DEGRADED };
      await eventually(async () => {
        for (const [name, status] of Object.entries(statuses)) {
          const { monitor } = await client().getMonitor({ id: ids[name]! });
          if ((monitor!.config.value as { status: MonitorStatus }).status !== want[status]) throw new Error(`${name} is not ${status} yet`);
        }
      });
    }
    /** Every delivery written for the monitors, sent or not: the outbox, so nothing is still to come. */
    const deliveries = async (ids: Record<string, string>) => api.db.prisma.notificationDelivery.count({ where: { monitorId: { in: Object.values(ids) } } });
    const openIncident = async (id: string) => (await api.incidents(ws.read.key).listIncidents({ monitorId: id, openOnly: true })).incidents[0];

    it("a tree failing from its root sends one alert; the rest are also affected; after the root recovers, a dependent still failing alerts", async () => {
      // root ← mid ← leaf (three levels), and root ← side.
      const { ids, received } = await tree("/hooks/tree", [
        ["root", []],
        ["mid", ["root"]],
        ["leaf", ["mid"]],
        ["side", ["root"]],
      ]);
      await check(ids, { root: "error" });
      // The leaf first: each failure is the root's to tell, whatever order its level's checks report in.
      await check(ids, { leaf: "error", side: "error", mid: "error" });
      await eventually(() => expect(received()).toEqual(["monitor.failed root"]));
      expect(await deliveries(ids)).toBe(1);
      const rootIncident = (await openIncident(ids.root!))!;
      expect([...rootIncident.alsoAffected].sort()).toEqual([ids.mid, ids.side, ids.leaf].sort());
      const read = await api.incidents(ws.read.key).getIncident({ id: rootIncident.id });
      expect(read.incident!.alsoAffected).toEqual(rootIncident.alsoAffected);
      for (const name of ["mid", "leaf", "side"]) expect(await openIncident(ids[name]!)).toBeUndefined();

      // A further failure of an absorbed monitor stays absorbed.
      await check(ids, { side: "degraded" });
      await check(ids, { side: "error" });
      // The side recovers first: it sends nothing.
      await check(ids, { side: "success" });
      expect(await deliveries(ids)).toBe(1);

      // The root recovers while mid and leaf still fail: mid alerts on its own, leaf is absorbed by mid's incident.
      await check(ids, { root: "success" });
      await eventually(() => expect(received().sort()).toEqual(["monitor.failed mid", "monitor.failed root", "monitor.recovered root"]));
      expect(await deliveries(ids)).toBe(3);
      const midIncident = (await openIncident(ids.mid!))!;
      expect(midIncident.alsoAffected).toEqual([ids.leaf]);
      expect(await openIncident(ids.leaf!)).toBeUndefined();
      expect(await openIncident(ids.side!)).toBeUndefined();

      // Mid recovers with leaf still failing: leaf alerts now.
      await check(ids, { mid: "success" });
      await eventually(() => expect(received().filter((e) => e.endsWith(" leaf") || e.endsWith(" mid"))).toEqual(["monitor.failed mid", "monitor.recovered mid", "monitor.failed leaf"]));
      expect(await openIncident(ids.leaf!)).toBeDefined();
    });

    it("a heartbeat's failure (a /fail ping) is absorbed by its dependency's incident, and alerts once the dependency recovers", async () => {
      const { ids, received } = await tree("/hooks/beat", [["gateway", []]]);
      const { monitor } = await client().createHeartbeatMonitor({ monitor: { name: "job", active: true, dependsOn: [ids.gateway!] } });
      const names = { ...ids, job: monitor!.id };
      await api.notificationClient(ws.write.key).createNotification({
        notification: channel("webhook", { endpoint: `${provider.url}/hooks/beat`, headers: [] }, { monitorIds: [monitor!.id] }),
      });
      await check(ids, { gateway: "error" });
      expect((await api.fetch(`${new URL(monitor!.pingUrl).pathname}/fail`)).status).toBe(200);
      expect((await openIncident(ids.gateway!))!.alsoAffected).toEqual([monitor!.id]);
      expect(await openIncident(monitor!.id)).toBeUndefined();
      expect(await deliveries(names)).toBe(1);
      await check(ids, { gateway: "success" });
      await eventually(async () => expect(await openIncident(monitor!.id)).toBeDefined());
      expect(await deliveries(names)).toBe(3);
      await eventually(() => expect(received().filter((e) => e.startsWith("monitor.failed"))).toHaveLength(2));
    });

    it("a monitor failing on its own before its dependency keeps alerting on its own", async () => {
      const { ids, received } = await tree("/hooks/own", [
        ["root", []],
        ["child", ["root"]],
      ]);
      await check(ids, { child: "error" });
      await check(ids, { root: "error" });
      await eventually(() => expect(received().sort()).toEqual(["monitor.failed child", "monitor.failed root"]));
      expect((await openIncident(ids.root!))!.alsoAffected).toEqual([]);
    });
  });
});
