import { Periodicity, Region, MonitorStatus } from "@vigil/proto";
import type { ResultMessage } from "@vigil/queue";
import { storeResults } from "../src/results/store";
import type { StatusRules } from "../src/status/rules";
import { BACKENDS, STATUS_RULES, startTestApi, type TestApi } from "./support/api";
import { codeOf } from "./support/codes";
import { checkResult } from "./support/results";

const T0 = Date.parse("2026-11-20T10:00:00.000Z");
/** A minute of the scenario: monitors here are checked every minute, so a region is stale after 3. */
const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();

const result = (monitorId: string, region: ResultMessage["region"], minute: number, status: ResultMessage["status"], overrides: Partial<ResultMessage> = {}) =>
  checkResult(monitorId, region, at(minute), status, overrides);

describe.each(BACKENDS)("alerting on %s", (backend) => {
  let api: TestApi;
  let writeKey: string;
  let readKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    api = await startTestApi(backend);
    const keys = await api.workspace();
    [writeKey, readKey] = [keys.write.key, keys.read.key];
    workspaceId = (await api.db.prisma.workspace.findUniqueOrThrow({ where: { slug: keys.slug } })).id;
  });
  afterAll(() => api.close());

  const monitorIn = async (regions: Region[], name = "api") => {
    const { monitor } = await api.client(writeKey).createHTTPMonitor({
      monitor: { name, url: "https://api.example.com/health", periodicity: Periodicity.PERIODICITY_1M, regions },
    });
    return monitor!.id;
  };
  const store = (results: ResultMessage[], rules: StatusRules = STATUS_RULES) => storeResults(api.db.prisma, results, rules);
  const events = async (monitorId: string) =>
    (await api.db.prisma.alertEvent.findMany({ where: { monitorId }, orderBy: [{ occurredAt: "asc" }, { id: "asc" }] })).map((e) => e.type);
  const statusOf = async (monitorId: string) => (await api.db.prisma.monitor.findUniqueOrThrow({ where: { id: monitorId } })).status;

  it("fails a monitor when its failing regions reach the quorum, and recovers it; a first healthy result is no event", async () => {
    const id = await monitorIn([Region.HOSTA_AMS, Region.HOSTB_FRA]);
    await store([result(id, "hostA-ams", 0, "success"), result(id, "hostB-fra", 0, "success")]);
    expect(await statusOf(id)).toBe("active");
    expect(await events(id)).toEqual([]);

    // 1 of 2 regions is the quorum.
    await store([result(id, "hostB-fra", 1, "error")]);
    expect(await statusOf(id)).toBe("error");
    const [incident] = await api.db.prisma.incident.findMany({ where: { monitorId: id } });
    expect(incident).toMatchObject({
      severity: "error",
      startedAt: new Date(at(1)),
      resolvedAt: null,
      regions: ["hostB-fra"],
      error: "HTTP 503",
      reason: "http_status",
      statusCode: 503,
    });

    await store([result(id, "hostA-ams", 1.5, "success"), result(id, "hostB-fra", 2, "success")]);
    expect(await statusOf(id)).toBe("active");
    expect(await events(id)).toEqual(["monitor.failed", "monitor.recovered"]);
    const resolved = await api.db.prisma.incident.findUniqueOrThrow({ where: { id: incident!.id } });
    expect(resolved.resolvedAt).toEqual(new Date(at(2)));
    const recovery = await api.db.prisma.alertEvent.findFirstOrThrow({ where: { monitorId: id, type: "monitor.recovered" } });
    expect(recovery.details).toMatchObject({ durationMs: 60_000, incident: { id: incident!.id } });
  });

  it("resolves the open incident and opens the next one when a monitor recovers and fails again within one batch", async () => {
    const id = await monitorIn([Region.HOSTA_AMS]);
    await store([result(id, "hostA-ams", 0, "error")]);
    await store([result(id, "hostA-ams", 1, "success"), result(id, "hostA-ams", 2, "error")]);
    expect(await events(id)).toEqual(["monitor.failed", "monitor.recovered", "monitor.failed"]);
    const incidents = await api.db.prisma.incident.findMany({ where: { monitorId: id }, orderBy: { startedAt: "asc" } });
    expect(incidents.map((i) => [i.startedAt, i.resolvedAt])).toEqual([
      [new Date(at(0)), new Date(at(1))],
      [new Date(at(2)), null],
    ]);
  });

  it("needs 2 of 4 regions, and takes degraded, failed and recovered as one incident", async () => {
    const id = await monitorIn([Region.HOSTA_AMS, Region.HOSTB_FRA, Region.HOSTA_IAD, Region.HOSTB_SIN]);
    const regions = ["hostA-ams", "hostB-fra", "hostA-iad", "hostB-sin"] as const;
    await store(regions.map((r) => result(id, r, 0, "success")));
    await store([result(id, "hostA-ams", 1, "error")]);
    expect(await statusOf(id)).toBe("active");
    await store([result(id, "hostB-fra", 1.2, "degraded")]);
    expect(await statusOf(id)).toBe("degraded");
    await store([result(id, "hostB-fra", 2, "error")]);
    expect(await statusOf(id)).toBe("error");
    await store([result(id, "hostA-ams", 2.5, "success"), result(id, "hostB-fra", 2.6, "success")]);
    expect(await events(id)).toEqual(["monitor.degraded", "monitor.failed", "monitor.recovered"]);
    const incidents = await api.db.prisma.incident.findMany({ where: { monitorId: id } });
    expect(incidents).toHaveLength(1);
    // At 2.5 only one region of four still fails: below the quorum, so the monitor recovers then.
    expect(incidents[0]).toMatchObject({ severity: "error", startedAt: new Date(at(1.2)), resolvedAt: new Date(at(2.5)), error: "HTTP 503" });
  });

  it("neither fails nor recovers a monitor because a region went stale (its agents are gone)", async () => {
    const id = await monitorIn([Region.HOSTA_AMS, Region.HOSTB_FRA, Region.HOSTA_IAD, Region.HOSTB_SIN]);
    await store(["hostA-ams", "hostB-fra", "hostA-iad", "hostB-sin"].map((r) => result(id, r as ResultMessage["region"], 0, "success")));
    // Two regions' agents vanish: the other two, healthy, go on alone. No alert.
    await store([1, 2, 3, 4, 5].flatMap((m) => [result(id, "hostA-iad", m, "success"), result(id, "hostB-sin", m, "success")]));
    expect(await statusOf(id)).toBe("active");
    expect(await api.pipeline.statuses.regions(id)).toEqual(
      expect.arrayContaining([{ region: "hostA-ams", status: "unknown" }, { region: "hostA-iad", status: expect.any(String) }]),
    );
    // The two remaining regions fail: the quorum of 2 is reached by live regions alone.
    await store([result(id, "hostA-iad", 6, "error"), result(id, "hostB-sin", 6, "error")]);
    expect(await statusOf(id)).toBe("error");
    // Their agents vanish too while failing, and the stale regions come back healthy: two healthy
    // regions cannot outvote two that went silent while failing.
    await store([7, 8, 9, 10, 11].flatMap((m) => [result(id, "hostA-ams", m, "success"), result(id, "hostB-fra", m, "success")]));
    expect(await statusOf(id)).toBe("error");
    // Once the failing regions report again, healthy, the monitor recovers.
    await store([result(id, "hostA-iad", 12, "success")]);
    expect(await statusOf(id)).toBe("active");
    expect(await events(id)).toEqual(["monitor.failed", "monitor.recovered"]);
  });

  it("yields one event per transition for redelivered batches, several regions in one batch and a backlog", async () => {
    const one = await monitorIn([Region.HOSTA_AMS, Region.HOSTB_FRA]);
    const batch = [result(one, "hostA-ams", 0, "error"), result(one, "hostB-fra", 0, "error")];
    await store(batch);
    await store(batch);
    expect(await events(one)).toEqual(["monitor.failed"]);

    // A backlog drained in one batch says what the results said one by one, in the order the checks ran.
    const backlog = await monitorIn([Region.HOSTA_AMS, Region.HOSTB_FRA]);
    await store([
      result(backlog, "hostB-fra", 3, "success"),
      result(backlog, "hostA-ams", 1, "error"),
      result(backlog, "hostA-ams", 0, "success"),
      result(backlog, "hostB-fra", 0, "success"),
      result(backlog, "hostA-ams", 2, "success"),
    ]);
    expect(await events(backlog)).toEqual(["monitor.failed", "monitor.recovered"]);
    expect(await statusOf(backlog)).toBe("active");
  });

  it("records one transition when several control planes store results of one monitor at once", async () => {
    const id = await monitorIn([Region.HOSTA_AMS, Region.HOSTB_FRA, Region.HOSTA_IAD]);
    await store(["hostA-ams", "hostB-fra", "hostA-iad"].map((r) => result(id, r as ResultMessage["region"], 0, "success")));
    await Promise.all([
      store([result(id, "hostA-ams", 1, "error")]),
      store([result(id, "hostB-fra", 1, "error")]),
      store([result(id, "hostA-iad", 1, "error")]),
    ]);
    expect(await events(id)).toEqual(["monitor.failed"]);
    expect(await api.db.prisma.incident.count({ where: { monitorId: id } })).toBe(1);
  });

  it("counts manual checks like scheduled ones, and only the regions a monitor is checked in", async () => {
    const id = await monitorIn([Region.HOSTA_AMS]);
    await store([result(id, "hostA-ams", 0, "success"), result(id, "hostB-fra", 1, "error")]);
    expect(await events(id)).toEqual([]);
    await store([result(id, "hostA-ams", 2, "error", { trigger: "manual" })]);
    expect(await events(id)).toEqual(["monitor.failed"]);

    // A monitor without regions follows the deployment's DEFAULT_REGIONS, for its status as for its schedule.
    const defaults = await monitorIn([]);
    const secondsAgo = (s: number) => ({ startedAt: new Date(Date.now() - s * 1000).toISOString() });
    await store([result(defaults, "hostA-ams", 0, "success", secondsAgo(20)), result(defaults, "hostB-fra", 0, "error", secondsAgo(10))]);
    expect(await statusOf(defaults)).toBe("active");
    const status = await api.client(readKey).getMonitorStatus({ id: defaults });
    expect(status.regions).toEqual([expect.objectContaining({ region: Region.HOSTA_AMS, status: MonitorStatus.ACTIVE })]);
    await store([result(defaults, "hostB-fra", 0, "error", secondsAgo(5))], { ...STATUS_RULES, defaultRegions: ["hostB-fra"] });
    expect(await statusOf(defaults)).toBe("error");
  });

  it("recovers a monitor when its only failing region is removed from it", async () => {
    const id = await monitorIn([Region.HOSTA_AMS, Region.HOSTB_FRA]);
    const now = Date.now();
    const recent = (secondsAgo: number) => new Date(now - secondsAgo * 1000).toISOString();
    await store([
      result(id, "hostA-ams", 0, "success", { startedAt: recent(20) }),
      result(id, "hostB-fra", 0, "error", { startedAt: recent(10) }),
    ]);
    expect(await statusOf(id)).toBe("error");
    await api.client(writeKey).updateHTTPMonitor({ id, monitor: { regions: [Region.HOSTA_AMS] } });
    expect(await statusOf(id)).toBe("active");
    expect(await events(id)).toEqual(["monitor.failed", "monitor.recovered"]);
  });

  it("writes one delivery per event and linked channel, and nothing for linking a channel", async () => {
    const id = await monitorIn([Region.HOSTA_AMS]);
    const other = await monitorIn([Region.HOSTA_AMS]);
    const channel = (name: string, monitorIds: string[]) =>
      api.notifications.repository.create(workspaceId, {
        name,
        provider: { type: "ntfy", config: { topic: name, serverUrl: "http://127.0.0.1:9", token: "" } },
        signingSecret: null,
        monitorIds,
      });
    const [first, second] = [await channel("first", [id]), await channel("second", [id, other])];
    await channel("unrelated", [other]);
    expect(await api.db.prisma.notificationDelivery.count({ where: { notificationId: { in: [first.id, second.id] } } })).toBe(0);

    // Stored deliveries only: this pipeline's worker would send them, so it is stopped first.
    await api.pipeline.deliveries.close();
    const { eventIds } = await store([result(id, "hostA-ams", 0, "error")]);
    expect(eventIds).toHaveLength(1);
    const deliveries = await api.db.prisma.notificationDelivery.findMany({ where: { eventId: { in: eventIds } } });
    expect(deliveries).toHaveLength(2);
    expect(deliveries.map((d) => d.notificationId).sort()).toEqual([first.id, second.id].sort());
    expect(deliveries.every((d) => d.event === "monitor.failed" && d.outcome === "pending" && d.monitorId === id)).toBe(true);
  });

  it("serves incidents through IncidentService to read keys of the workspace only", async () => {
    const id = await monitorIn([Region.HOSTA_AMS], "incidents");
    await store([result(id, "hostA-ams", 0, "error"), result(id, "hostA-ams", 5, "success"), result(id, "hostA-ams", 9, "degraded")]);
    const incidents = api.incidents(readKey);
    const { incidents: list, totalSize } = await incidents.listIncidents({ monitorId: id });
    expect(totalSize).toBe(2);
    expect(list.map((i) => i.severity)).toEqual([MonitorStatus.DEGRADED, MonitorStatus.ERROR]);
    expect(list[1]).toMatchObject({ monitorId: id, durationMs: 300_000n, regions: [Region.HOSTA_AMS], error: "HTTP 503", reason: "http_status", statusCode: 503 });
    expect(list[0]!.resolvedAt).toBeUndefined();
    expect((await incidents.listIncidents({ monitorId: id, openOnly: true })).incidents.map((i) => i.id)).toEqual([list[0]!.id]);
    expect((await incidents.getIncident({ id: list[1]!.id })).incident?.id).toBe(list[1]!.id);
    expect(await codeOf(incidents.listIncidents({ limit: 101 }))).not.toBe("ok");

    const stranger = api.incidents((await api.workspace()).read.key);
    expect(await codeOf(stranger.getIncident({ id: list[1]!.id }))).toBe(5);
    expect((await stranger.listIncidents({ monitorId: id })).totalSize).toBe(0);
    expect(await codeOf(api.incidents(undefined).listIncidents({}))).toBe(16);
  });
});
