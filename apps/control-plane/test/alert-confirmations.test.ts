import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { MonitorStatus, Periodicity, Region } from "@vigil/proto";
import type { ResultMessage } from "@vigil/queue";
import { storeResults } from "../src/results/store";
import { rejection } from "./support/codes";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { checkResult } from "./support/results";

const T0 = Date.parse("2026-11-20T10:00:00.000Z");
const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();
const mask = (...paths: string[]) => create(FieldMaskSchema, { paths });


describe.each(BACKENDS)("per-monitor quorum and confirmations on %s", (backend) => {
  let api: TestApi;
  let writeKey: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    writeKey = (await api.workspace()).write.key;
  });
  afterAll(() => api.close());

  const client = () => api.client(writeKey);
  const httpMonitor = async (regions: Region[], fields: { alertQuorum?: string; confirmations?: bigint; recoveryConfirmations?: bigint } = {}) => {
    const { monitor } = await client().createHTTPMonitor({
      monitor: { name: "api", url: "https://api.example.com/health", periodicity: Periodicity.PERIODICITY_1M, regions, ...fields },
    });
    return monitor!.id;
  };
  const store = (results: ResultMessage[]) => storeResults(api.db.prisma, results, STATUS_RULES);
  const check = (id: string, region: ResultMessage["region"], minute: number, status: ResultMessage["status"]) => checkResult(id, region, at(minute), status);
  const statusOf = async (id: string) => (await api.db.prisma.monitor.findUniqueOrThrow({ where: { id } })).status;
  const events = async (id: string) =>
    (await api.db.prisma.alertEvent.findMany({ where: { monitorId: id }, orderBy: [{ occurredAt: "asc" }, { id: "asc" }] })).map((e) => e.type);
  const incidents = (id: string) => api.db.prisma.incident.findMany({ where: { monitorId: id }, orderBy: { startedAt: "asc" } });

  describe("through the API", () => {
    it("defaults to the deployment's quorum and one confirmation each way, for every kind", async () => {
      const periodicity = Periodicity.PERIODICITY_1M;
      const created = [
        (await client().createHTTPMonitor({ monitor: { name: "h", url: "https://example.com", periodicity } })).monitor!,
        (await client().createTCPMonitor({ monitor: { name: "t", uri: "db.example.com:5432", periodicity } })).monitor!,
        (await client().createDNSMonitor({ monitor: { name: "d", uri: "example.com", periodicity } })).monitor!,
      ];
      for (const monitor of created) expect(monitor).toMatchObject({ alertQuorum: "", confirmations: 1n, recoveryConfirmations: 1n });
    });

    it("creates, reads, lists and updates the fields of each kind, a named absent field going back to its default", async () => {
      const periodicity = Periodicity.PERIODICITY_1M;
      const regions = [Region.HOSTA_AMS, Region.HOSTB_FRA, Region.HOSTA_IAD];
      const fields = { alertQuorum: "2", confirmations: 3n, recoveryConfirmations: 2n };
      const http = (await client().createHTTPMonitor({ monitor: { name: "h", url: "https://example.com", periodicity, regions, ...fields } })).monitor!;
      const tcp = (await client().createTCPMonitor({ monitor: { name: "t", uri: "db.example.com:5432", periodicity, regions, ...fields } })).monitor!;
      const dns = (await client().createDNSMonitor({ monitor: { name: "d", uri: "example.com", periodicity, regions, ...fields } })).monitor!;
      for (const monitor of [http, tcp, dns]) expect(monitor).toMatchObject(fields);
      expect((await client().getMonitor({ id: tcp.id })).monitor!.config).toMatchObject({ case: "tcp", value: fields });
      const listed = await client().listMonitors({ limit: 100 });
      expect(listed.dnsMonitors.find((m) => m.id === dns.id)).toMatchObject(fields);

      // Without a mask: only what is sent changes.
      const partial = (await client().updateHTTPMonitor({ id: http.id, monitor: { alertQuorum: "all" } })).monitor!;
      expect(partial).toMatchObject({ alertQuorum: "all", confirmations: 3n, recoveryConfirmations: 2n });
      // Named under the mask and absent: back to the defaults.
      const reset = (await client().updateTCPMonitor({ id: tcp.id, monitor: { confirmations: 5n }, updateMask: mask("confirmations", "alert_quorum", "recoveryConfirmations") }))
        .monitor!;
      expect(reset).toMatchObject({ alertQuorum: "", confirmations: 5n, recoveryConfirmations: 1n });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ["an unknown word", { alertQuorum: "most" }, 'monitor.alertQuorum: must be "half", "majority", "all" or a number of regions from 1'],
      ["0 regions", { alertQuorum: "0" }, "monitor.alertQuorum: must be"],
      ["more regions than it has", { alertQuorum: "3" }, "monitor.alertQuorum: must be at most the number of the monitor's regions (2), not 3"],
      ["0 confirmations", { confirmations: 0n }, "monitor.confirmations: must be an integer from 1 to 10"],
      ["11 recovery confirmations", { recoveryConfirmations: 11n }, "monitor.recoveryConfirmations: must be an integer from 1 to 10"],
    ])("refuses %s with invalid_argument naming the field, writing nothing", async (_name, fields, rule) => {
      const before = await api.db.prisma.monitor.count();
      const error = await rejection(
        client().createTCPMonitor({
          monitor: { name: "t", uri: "db.example.com:5432", periodicity: Periodicity.PERIODICITY_1M, regions: [Region.HOSTA_AMS, Region.HOSTB_FRA], ...fields },
        }),
      );
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.rawMessage).toContain(rule);
      expect(await api.db.prisma.monitor.count()).toBe(before);
    });

    it("refuses an update that leaves fewer regions than the monitor's number quorum, and keeps the monitor", async () => {
      const id = await httpMonitor([Region.HOSTA_AMS, Region.HOSTB_FRA], { alertQuorum: "2" });
      const error = await rejection(client().updateHTTPMonitor({ id, monitor: { regions: [Region.HOSTA_AMS] }, updateMask: mask("regions") }));
      expect([error.code, error.rawMessage]).toEqual([Code.InvalidArgument, "monitor.alertQuorum: must be at most the number of the monitor's regions (1), not 2"]);
      expect((await client().getMonitor({ id })).monitor!.config).toMatchObject({ value: { regions: [Region.HOSTA_AMS, Region.HOSTB_FRA], alertQuorum: "2" } });
    });
  });

  describe("stored results", () => {
    it("fails a region needing 3 confirmations on its 3rd failing check in a row, not its 2nd", async () => {
      const id = await httpMonitor([Region.HOSTA_AMS], { confirmations: 3n });
      await store([check(id, "hostA-ams", 0, "success")]);
      await store([check(id, "hostA-ams", 1, "error")]);
      await store([check(id, "hostA-ams", 2, "error")]);
      expect(await statusOf(id)).toBe("active");
      expect(await incidents(id)).toEqual([]);
      // A good check in between starts the count again.
      await store([check(id, "hostA-ams", 3, "success"), check(id, "hostA-ams", 4, "error"), check(id, "hostA-ams", 5, "error")]);
      expect(await statusOf(id)).toBe("active");
      await store([check(id, "hostA-ams", 6, "error")]);
      expect(await statusOf(id)).toBe("error");
      expect(await events(id)).toEqual(["monitor.failed"]);
      expect((await incidents(id)).map((i) => [i.startedAt, i.resolvedAt])).toEqual([[new Date(at(6)), null]]);
    });

    it("recovers a region needing 2 recovery confirmations on its 2nd good check in a row", async () => {
      const id = await httpMonitor([Region.HOSTA_AMS], { recoveryConfirmations: 2n });
      await store([check(id, "hostA-ams", 0, "error")]);
      expect(await statusOf(id)).toBe("error");
      await store([check(id, "hostA-ams", 1, "success")]);
      expect(await statusOf(id)).toBe("error");
      await store([check(id, "hostA-ams", 2, "error"), check(id, "hostA-ams", 3, "success")]);
      expect(await statusOf(id)).toBe("error");
      await store([check(id, "hostA-ams", 4, "success")]);
      expect(await statusOf(id)).toBe("active");
      expect(await events(id)).toEqual(["monitor.failed", "monitor.recovered"]);
      expect((await incidents(id)).map((i) => [i.startedAt, i.resolvedAt])).toEqual([[new Date(at(0)), new Date(at(4))]]);
    });

    it("counts a redelivered result once toward the confirmations", async () => {
      const id = await httpMonitor([Region.HOSTA_AMS], { confirmations: 2n });
      const first = check(id, "hostA-ams", 1, "error");
      await store([first]);
      await store([first]);
      await store([first, first]);
      expect(await statusOf(id)).toBe("active");
      expect(await api.db.prisma.monitorRegionStatus.findFirstOrThrow({ where: { monitorId: id } })).toMatchObject({ status: "active", streak: 1 });
      await store([check(id, "hostA-ams", 2, "error")]);
      expect(await statusOf(id)).toBe("error");
    });

    it("opens an incident only when the monitor's own quorum is reached", async () => {
      const regions = [Region.HOSTA_AMS, Region.HOSTB_FRA, Region.HOSTA_IAD];
      const all = await httpMonitor(regions, { alertQuorum: "all" });
      const one = await httpMonitor(regions, { alertQuorum: "1" });
      const deployment = await httpMonitor(regions);
      for (const id of [all, one, deployment]) {
        await store(["hostA-ams", "hostB-fra", "hostA-iad"].map((r) => check(id, r as ResultMessage["region"], 0, "success")));
        await store([check(id, "hostA-ams", 1, "error")]);
      }
      // One of three: "1" fails; "all" and the deployment's "half" (2 of 3) do not.
      expect([await statusOf(all), await statusOf(one), await statusOf(deployment)]).toEqual(["active", "error", "active"]);
      expect((await incidents(one)).length).toBe(1);
      for (const id of [all, deployment]) await store([check(id, "hostB-fra", 2, "error")]);
      expect([await statusOf(all), await statusOf(deployment)]).toEqual(["active", "error"]);
      expect(await incidents(all)).toEqual([]);
      await store([check(all, "hostA-iad", 3, "error")]);
      expect(await statusOf(all)).toBe("error");
      expect(await events(all)).toEqual(["monitor.failed"]);
    });

    it("applies a changed quorum at once: a failing region below the old quorum fails the monitor under the new", async () => {
      const id = await httpMonitor([Region.HOSTA_AMS, Region.HOSTB_FRA, Region.HOSTA_IAD], { alertQuorum: "all" });
      // Checked just now: an update re-evaluates at its own time, when older results would be stale.
      const now = new Date(Date.now() - 1_000).toISOString();
      await store((["hostA-ams", "hostB-fra", "hostA-iad"] as const).map((r, i) => checkResult(id, r, now, i === 0 ? "error" : "success")));
      expect(await statusOf(id)).toBe("active");
      await client().updateHTTPMonitor({ id, monitor: { alertQuorum: "1" } });
      expect(await statusOf(id)).toBe("error");
      expect(await events(id)).toEqual(["monitor.failed"]);
    });

    it("GetMonitorStatus (and so a status page) shows a region as confirmed, not its unconfirmed newest check", async () => {
      const id = await httpMonitor([Region.HOSTA_AMS, Region.HOSTB_FRA], { confirmations: 2n });
      const secondsAgo = (s: number) => new Date(Date.now() - s * 1_000).toISOString();
      await store([checkResult(id, "hostA-ams", secondsAgo(5), "success"), checkResult(id, "hostB-fra", secondsAgo(5), "error")]);
      const regions = async () => (await client().getMonitorStatus({ id })).regions.map((r) => [r.region, r.status]);
      expect(await regions()).toEqual([
        [Region.HOSTA_AMS, MonitorStatus.ACTIVE],
        [Region.HOSTB_FRA, MonitorStatus.ACTIVE],
      ]);
      await store([checkResult(id, "hostB-fra", secondsAgo(2), "error")]);
      expect(await regions()).toEqual([
        [Region.HOSTA_AMS, MonitorStatus.ACTIVE],
        [Region.HOSTB_FRA, MonitorStatus.ERROR],
      ]);
      expect(await statusOf(id)).toBe("error");
    });

    it("moves a monitor without these settings on every check, as before", async () => {
      const id = await httpMonitor([Region.HOSTA_AMS]);
      await store([check(id, "hostA-ams", 0, "error")]);
      expect(await statusOf(id)).toBe("error");
      await store([check(id, "hostA-ams", 1, "degraded")]);
      expect(await statusOf(id)).toBe("degraded");
      await store([check(id, "hostA-ams", 2, "success")]);
      expect(await statusOf(id)).toBe("active");
      expect(await events(id)).toEqual(["monitor.failed", "monitor.degraded", "monitor.recovered"]);
    });
  });
});
