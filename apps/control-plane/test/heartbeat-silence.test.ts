/**
 * Silence fails a heartbeat monitor and a success recovers it, through the incidents every kind has: the
 * control planes' sweep on the test's clock, pings over HTTP, incidents read through IncidentService.
 */
import { MonitorStatus } from "@vigil/proto";
import { eventually } from "../../../test/eventually";
import { loadConfig } from "../src/config";
import { SILENCE_SWEEP_MS } from "../src/heartbeats/silence";
import { BACKENDS, startTestApi, type TestApi, type WorkspaceKeys } from "./support/api";

describe.each(BACKENDS)("heartbeat silence (%s)", (backend) => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let now = new Date("2026-11-29T06:00:00Z");
  const at = (iso: string) => (now = new Date(iso));

  beforeAll(async () => {
    // The tests drive the sweep on their clock: the pipeline's own timer would race them.
    api = await startTestApi(backend, { clock: () => now, pipeline: { heartbeatSweepMs: 0 } });
    ws = await api.workspace();
  });
  afterAll(() => api.close());

  async function heartbeat(fields: { periodSeconds?: bigint; cron?: string; timezone?: string; graceSeconds?: bigint }) {
    const { monitor } = await api.client(ws.write.key).createHeartbeatMonitor({ monitor: { name: "job", active: true, ...fields } });
    return { id: monitor!.id, path: new URL(monitor!.pingUrl).pathname, createdAt: new Date(Number(monitor!.createdAt!.seconds) * 1000) };
  }
  const statusOf = async (id: string) => {
    const { monitor } = await api.client(ws.read.key).getMonitor({ id });
    return (monitor!.config.value as { status: MonitorStatus }).status;
  };
  const incidentsOf = async (id: string) => (await api.incidents(ws.read.key).listIncidents({ monitorId: id })).incidents;
  const ping = async (path: string) => expect((await api.fetch(path)).status).toBe(200);

  test("no success within period + grace fails the monitor once, and the next success recovers it", async () => {
    const { id, path } = await heartbeat({ periodSeconds: 60n, graceSeconds: 30n });
    at("2026-11-29T07:00:00Z");
    await ping(path);
    expect(await statusOf(id)).toBe(MonitorStatus.ACTIVE);
    at("2026-11-29T07:01:29Z");
    expect(await api.pipeline.silence.sweep()).toBe(0);
    at("2026-11-29T07:01:30Z");
    expect(await api.pipeline.silence.sweep()).toBe(1);
    expect(await api.pipeline.silence.sweep()).toBe(0);
    expect(await statusOf(id)).toBe(MonitorStatus.ERROR);
    const [incident] = await incidentsOf(id);
    expect(incident).toMatchObject({ severity: MonitorStatus.ERROR, startedAt: { seconds: BigInt(Date.parse("2026-11-29T07:01:30Z") / 1000) } });
    expect(incident!.resolvedAt).toBeUndefined();

    at("2026-11-29T07:10:00Z");
    await ping(path);
    expect(await statusOf(id)).toBe(MonitorStatus.ACTIVE);
    const resolved = await incidentsOf(id);
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.durationMs).toBe(BigInt(8.5 * 60_000));
    const { timeline } = await api.incidents(ws.read.key).getIncident({ id: incident!.id });
    expect(timeline.map((e) => e.type)).toEqual(["monitor.failed", "monitor.recovered"]);
  });

  test("a cron schedule is due at its next time in its time zone, plus the grace", async () => {
    const { id, path } = await heartbeat({ cron: "0 3 * * *", timezone: "Europe/Paris", graceSeconds: 600n });
    // 04:00 in Paris, where winter time is UTC+1: the next 03:00 there is on 1 December at 02:00 UTC, plus ten minutes.
    at("2026-11-30T03:00:00Z");
    await ping(path);
    at("2026-12-01T02:09:59Z");
    await api.pipeline.silence.sweep();
    expect(await statusOf(id)).toBe(MonitorStatus.ACTIVE);
    at("2026-12-01T02:10:00Z");
    await api.pipeline.silence.sweep();
    expect(await statusOf(id)).toBe(MonitorStatus.ERROR);
  });

  test("/fail fails at once and a non-zero exit code too; a paused monitor is not swept", async () => {
    const { id, path } = await heartbeat({ periodSeconds: 3600n });
    await ping(`${path}/fail`);
    expect(await statusOf(id)).toBe(MonitorStatus.ERROR);
    await ping(`${path}/0`);
    expect(await statusOf(id)).toBe(MonitorStatus.ACTIVE);
    await ping(`${path}/2`);
    expect(await statusOf(id)).toBe(MonitorStatus.ERROR);
    expect((await incidentsOf(id)).map((i) => i.resolvedAt === undefined)).toEqual([true, false]);

    const paused = await heartbeat({ periodSeconds: 60n, graceSeconds: 0n });
    await api.client(ws.write.key).updateHeartbeatMonitor({ id: paused.id, monitor: { active: false } });
    now = new Date(now.getTime() + 86_400_000);
    await api.pipeline.silence.sweep();
    expect(await statusOf(paused.id)).toBe(MonitorStatus.UNKNOWN);
  });

  test("two control planes sweeping at once fail a silent monitor once", async () => {
    const replica = await api.startReplica();
    try {
      // The monitors of the tests above fail first, so that the sweeps below have one to fail.
      now = new Date(now.getTime() + 31 * 86_400_000);
      await api.pipeline.silence.sweep();
      const { id, path } = await heartbeat({ periodSeconds: 60n, graceSeconds: 0n });
      await ping(path);
      now = new Date(now.getTime() + 120_000);
      const failed = await Promise.all([api.pipeline.silence.sweep(), replica.pipeline.silence.sweep(), api.pipeline.silence.sweep()]);
      expect(failed.reduce((a, b) => a + b, 0)).toBe(1);
      const [incident] = await incidentsOf(id);
      const { timeline } = await api.incidents(ws.read.key).getIncident({ id: incident!.id });
      expect(timeline.map((e) => e.type)).toEqual(["monitor.failed"]);
    } finally {
      await replica.close();
    }
  });
});

describe("the silence sweep's timer (HEARTBEAT_SWEEP_SECONDS)", () => {
  it("defaults to every 15 s, takes 0 (no timer) to 3600, and refuses other values by name", () => {
    expect(loadConfig({}).heartbeatSweepMs).toBe(SILENCE_SWEEP_MS);
    expect(SILENCE_SWEEP_MS).toBe(15_000);
    expect(loadConfig({ HEARTBEAT_SWEEP_SECONDS: "0" }).heartbeatSweepMs).toBe(0);
    expect(loadConfig({ HEARTBEAT_SWEEP_SECONDS: "60" }).heartbeatSweepMs).toBe(60_000);
    for (const value of ["-1", "3601", "1.5", "often"]) expect(() => loadConfig({ HEARTBEAT_SWEEP_SECONDS: value })).toThrow(/HEARTBEAT_SWEEP_SECONDS/);
  });

  it("fails a silent monitor on its own at its interval, and a pipeline with 0 never does", async () => {
    let now = new Date("2026-11-29T06:00:00Z");
    const timed = await startTestApi("pglite", { clock: () => now, pipeline: { heartbeatSweepMs: 50 } });
    const still = await startTestApi("pglite", { clock: () => now, pipeline: { heartbeatSweepMs: 0 } });
    try {
      const watch = async (api: TestApi) => {
        const ws = await api.workspace();
        const { monitor } = await api.client(ws.write.key).createHeartbeatMonitor({ monitor: { name: "job", active: true, periodSeconds: 60n, graceSeconds: 0n } });
        expect((await api.fetch(new URL(monitor!.pingUrl).pathname)).status).toBe(200);
        return async () => ((await api.client(ws.read.key).getMonitor({ id: monitor!.id })).monitor!.config.value as { status: MonitorStatus }).status;
      };
      const [timedStatus, stillStatus] = [await watch(timed), await watch(still)];
      now = new Date(now.getTime() + 3_600_000);
      await eventually(async () => expect(await timedStatus()).toBe(MonitorStatus.ERROR));
      // 0 is no timer, not setInterval's 0 (every millisecond): after four of the other's intervals it is as it was.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await stillStatus()).toBe(MonitorStatus.ACTIVE);
      expect(await still.pipeline.silence.sweep()).toBe(1);
    } finally {
      await Promise.all([timed.close(), still.close()]);
    }
  });
});
