import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Periodicity } from "@vigil/proto";
import { startProviderServer, type ProviderServer } from "../../../packages/notifications/test/support/provider-server";
import { eventually } from "../../../test/eventually";
import { BACKENDS, startTestApi, type Replica, type TestApi, type WorkspaceKeys } from "./support/api";
import { channel } from "./support/channels";
import { checkResult, publishResults } from "./support/results";
import type { MaintenanceEvents } from "../src/maintenance/events";

const MINUTE = 60_000;

/**
 * Maintenance windows end to end (docs/alerting.md "Maintenance"): results reach a real control plane through
 * Redis, alerts go to a local webhook receiver, and the windows' sweep runs on the test's time, on two control
 * planes at once.
 */
describe.each(BACKENDS)("alerting during maintenance on %s", (backend) => {
  let api: TestApi;
  let replica: Replica;
  let provider: ProviderServer;
  let ws: WorkspaceKeys;
  let monitors = 0;
  /** What MaintenanceEvents heard, from either control plane, once the transaction it was told in had committed. */
  const told: string[] = [];
  /** Events the listener refuses next, as a listener whose writes fail in the event's transaction would. */
  const refusing = new Set<string>();
  const hear = (what: string, said: string) => {
    if (refusing.delete(what)) throw new Error(`the listener failed at ${what}`);
    return async () => void told.push(said);
  };
  const events: MaintenanceEvents = {
    scheduled: async (_tx, w) => hear("scheduled", `scheduled ${w.title}`),
    started: async (_tx, w, o) => hear("started", `started ${w.title} ${o.startsAt.toISOString()}`),
    completed: async (_tx, w, o) => hear("completed", `completed ${w.title} ${o.endsAt.toISOString()}`),
  };

  beforeAll(async () => {
    provider = await startProviderServer();
    // The test sweeps on its own time: the pipelines' timers would race it.
    api = await startTestApi(backend, { pipeline: { maintenanceSweepMs: 0 }, maintenanceEvents: events });
    replica = await api.startReplica();
    ws = await api.workspace();
  });
  afterAll(async () => {
    await replica.close();
    await api.close();
    await provider.close();
  });

  /** A monitor with a webhook channel of its own (path /hooks/<n>). */
  async function monitorWithWebhook() {
    const n = ++monitors;
    const { monitor } = await api.client(ws.write.key).createHTTPMonitor({
      monitor: { name: `api ${n}`, url: "https://api.example.com/health", periodicity: Periodicity.PERIODICITY_1M },
    });
    const path = `/maintenance-hooks/${n}`;
    await api.notificationClient(ws.write.key).createNotification({
      notification: channel("webhook", { endpoint: `${provider.url}${path}`, headers: [] }, { monitorIds: [monitor!.id] }),
    });
    const received = () => provider.received.filter((r) => r.url === path).map((r) => r.json as { type: string; data: { incident: { id: string; startedAt: string } } });
    return { id: monitor!.id, received };
  }

  const windowOver = (monitorIds: string[], startsAt: Date, endsAt: Date) =>
    api.maintenanceClient(ws.write.key).createMaintenanceWindow({
      maintenance: { title: "Database upgrade", startsAt: timestampFromDate(startsAt), endsAt: timestampFromDate(endsAt), monitorIds },
    });
  const publish = (monitorId: string, at: Date, status: "error" | "success") => publishResults(api.redisPrefix, [checkResult(monitorId, "hostA-ams", at.toISOString(), status)]);
  const statusOf = async (id: string) => (await api.db.prisma.monitor.findUniqueOrThrow({ where: { id } })).status;
  const incidentsOf = (monitorId: string) => api.db.prisma.incident.findMany({ where: { monitorId } });
  /** The checks the daily figures (uptime on pages, summaries) count for a monitor. */
  const counted = async (monitorId: string) => {
    const days = await api.db.prisma.allRegionDailyResultCount.findMany({ where: { monitorId } });
    return days.reduce((sum, d) => sum + d.successful + d.degraded + d.failed, 0);
  };
  const deliveriesOf = (monitorId: string) => api.db.prisma.notificationDelivery.count({ where: { monitorId } });

  it("checks and stores a failure inside a window, marked and left out of uptime, but opens no incident and sends nothing, and alerts once at the end if it still goes on", async () => {
    const muted = await monitorWithWebhook();
    const loud = await monitorWithWebhook();
    const startsAt = new Date(Date.now() - 10 * MINUTE);
    const endsAt = new Date(Date.now() + 10 * MINUTE);
    await windowOver([muted.id], startsAt, endsAt);

    const failedAt = new Date(Date.now() - 3_000);
    await publish(muted.id, failedAt, "error");
    await publish(loud.id, failedAt, "error");
    // The monitor outside the window alerts; by then the one inside has been stored too (one batch, one transaction each).
    await eventually(() => expect(loud.received().map((e) => e.type)).toEqual(["monitor.failed"]));
    await eventually(async () => expect(await statusOf(muted.id)).toBe("error"));
    // Stored and marked, and counted in no uptime figure.
    const [stored] = (await api.client(ws.read.key).listCheckResults({ id: muted.id })).results;
    expect(stored).toMatchObject({ inMaintenance: true });
    expect((await api.client(ws.read.key).listCheckResults({ id: loud.id })).results[0]).toMatchObject({ inMaintenance: false });
    expect(await counted(muted.id)).toBe(0);
    expect(await counted(loud.id)).toBe(1);
    expect(await incidentsOf(muted.id)).toEqual([]);
    expect(await deliveriesOf(muted.id)).toBe(0);
    expect(muted.received()).toEqual([]);

    // Before the end nothing happens; at the end both control planes sweep, and one of them alerts, once.
    expect(await api.pipeline.maintenance.sweep(new Date(endsAt.getTime() - 1))).toBe(0);
    const afterEnd = new Date(endsAt.getTime() + 5_000);
    const swept = await Promise.all([api.pipeline.maintenance.sweep(afterEnd), replica.pipeline.maintenance.sweep(afterEnd)]);
    expect(swept.sort()).toEqual([0, 1]);
    expect(await api.pipeline.maintenance.sweep(new Date(afterEnd.getTime() + MINUTE))).toBe(0);

    const incidents = await incidentsOf(muted.id);
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ startedAt: endsAt, resolvedAt: null, severity: "error" });
    await eventually(() => expect(muted.received().map((e) => e.type)).toEqual(["monitor.failed"]));
    expect(muted.received()[0]!.data.incident).toMatchObject({ id: incidents[0]!.id, startedAt: endsAt.toISOString() });
    expect(await deliveriesOf(muted.id)).toBe(1);
  });

  it("says nothing at the end of a window when the failure ended inside it", async () => {
    const monitor = await monitorWithWebhook();
    const endsAt = new Date(Date.now() + 10 * MINUTE);
    await windowOver([monitor.id], new Date(Date.now() - 10 * MINUTE), endsAt);
    await publish(monitor.id, new Date(Date.now() - 5_000), "error");
    await eventually(async () => expect(await statusOf(monitor.id)).toBe("error"));
    await publish(monitor.id, new Date(Date.now() - 2_000), "success");
    await eventually(async () => expect(await statusOf(monitor.id)).toBe("active"));

    expect(await api.pipeline.maintenance.sweep(new Date(endsAt.getTime() + 1_000))).toBe(0);
    expect(await incidentsOf(monitor.id)).toEqual([]);
    expect(await deliveriesOf(monitor.id)).toBe(0);
  });

  it("alerts as usual for a failure after the window ended", async () => {
    const monitor = await monitorWithWebhook();
    await windowOver([monitor.id], new Date(Date.now() - 20 * MINUTE), new Date(Date.now() - 10 * MINUTE));
    await publish(monitor.id, new Date(Date.now() - 3_000), "error");
    await eventually(() => expect(monitor.received().map((e) => e.type)).toEqual(["monitor.failed"]));
    expect(await incidentsOf(monitor.id)).toHaveLength(1);
  });

  it("tells MaintenanceEvents of a window scheduled, and of an occurrence's start and completion once across control planes", async () => {
    const startsAt = new Date(Date.now() + 60 * MINUTE);
    const endsAt = new Date(startsAt.getTime() + 30 * MINUTE);
    await api.maintenanceClient(ws.write.key).createMaintenanceWindow({
      maintenance: { title: "Told", startsAt: timestampFromDate(startsAt), endsAt: timestampFromDate(endsAt), monitorIds: [(await monitorWithWebhook()).id] },
    });
    const mine = () => told.filter((t) => t.includes(" Told"));
    expect(mine()).toEqual(["scheduled Told"]);
    const sweepBoth = (t: Date) => Promise.all([api.pipeline.maintenance.sweep(t), replica.pipeline.maintenance.sweep(t)]);
    await sweepBoth(new Date(startsAt.getTime() - 1));
    expect(mine()).toEqual(["scheduled Told"]);
    await sweepBoth(new Date(startsAt.getTime() + 1_000));
    await sweepBoth(new Date(startsAt.getTime() + 2_000));
    expect(mine()).toEqual(["scheduled Told", `started Told ${startsAt.toISOString()}`]);
    await sweepBoth(new Date(endsAt.getTime() + 1_000));
    await sweepBoth(new Date(endsAt.getTime() + 2_000));
    expect(mine()).toEqual(["scheduled Told", `started Told ${startsAt.toISOString()}`, `completed Told ${endsAt.toISOString()}`]);
  });

  it("rolls an event back with its listener's failure: no window without its telling, and a start or end acted on (and alerted) at the next sweep, once", async () => {
    const monitor = await monitorWithWebhook();
    refusing.add("scheduled");
    const startsAt = new Date(Date.now() - 10 * MINUTE);
    const endsAt = new Date(Date.now() + 10 * MINUTE);
    const create = () =>
      api.maintenanceClient(ws.write.key).createMaintenanceWindow({
        maintenance: { title: "Refused once", startsAt: timestampFromDate(startsAt), endsAt: timestampFromDate(endsAt), monitorIds: [monitor.id] },
      });
    await expect(create()).rejects.toThrow();
    expect(await api.db.prisma.maintenanceWindow.count({ where: { monitors: { some: { monitorId: monitor.id } } } })).toBe(0);

    await create();
    const mine = () => told.filter((t) => t.includes(" Refused once"));
    refusing.add("started");
    await api.pipeline.maintenance.sweep(new Date(startsAt.getTime() + 1_000));
    expect(mine()).toEqual(["scheduled Refused once"]);
    await api.pipeline.maintenance.sweep(new Date(startsAt.getTime() + 2_000));
    expect(mine()).toEqual(["scheduled Refused once", `started Refused once ${startsAt.toISOString()}`]);

    await publish(monitor.id, new Date(Date.now() - 3_000), "error");
    await eventually(async () => expect(await statusOf(monitor.id)).toBe("error"));
    refusing.add("completed");
    expect(await api.pipeline.maintenance.sweep(new Date(endsAt.getTime() + 1_000))).toBe(0);
    expect(await incidentsOf(monitor.id)).toEqual([]);
    expect(await api.pipeline.maintenance.sweep(new Date(endsAt.getTime() + 2_000))).toBe(1);
    expect(await api.pipeline.maintenance.sweep(new Date(endsAt.getTime() + 3_000))).toBe(0);
    expect(mine()).toEqual(["scheduled Refused once", `started Refused once ${startsAt.toISOString()}`, `completed Refused once ${endsAt.toISOString()}`]);
    expect(await incidentsOf(monitor.id)).toHaveLength(1);
    await eventually(() => expect(monitor.received().map((e) => e.type)).toEqual(["monitor.failed"]));
  });
});
