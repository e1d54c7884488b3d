import type { Client } from "@connectrpc/connect";
import { REGION_IDS, type RegionId } from "@vigil/domain";
import { MonitorService, Periodicity, Region } from "@vigil/proto";
import { schedulerId } from "@vigil/queue";
import { deletePrefix } from "../../../test/redis";
import { testPipelineConfig } from "./support/control-plane";
import { startPipeline } from "../src/pipeline";
import { MonitorRepository } from "../src/monitors/repository";
import { createLogger } from "@vigil/logging";
import { eventually } from "./support/eventually";
import { startTestApi, type TestApi } from "./support/api";

describe("scheduling checks in Redis", () => {
  let api: TestApi;
  let client: Client<typeof MonitorService>;
  const queue = (region: RegionId) => api.pipeline.scheduler.queue(region);
  /** The regions whose queue has a job scheduler for the monitor. */
  const scheduledRegions = async (monitorId: string) => {
    const found = await Promise.all(REGION_IDS.map(async (r) => ((await queue(r).getJobScheduler(schedulerId(monitorId))) ? r : null)));
    return found.filter(Boolean);
  };

  beforeAll(async () => {
    api = await startTestApi("pglite");
    client = api.client((await api.workspace()).write.key);
  });
  afterAll(() => api.close());

  const create = (fields: { active?: boolean; regions?: Region[]; periodicity?: Periodicity } = {}) =>
    client
      .createHTTPMonitor({ monitor: { name: "s", url: "http://127.0.0.1:9/", periodicity: Periodicity.PERIODICITY_1M, active: true, ...fields } })
      .then((r) => r.monitor!);

  it("keeps one scheduler per active monitor and region, at the monitor's period, carrying its configuration", async () => {
    const monitor = await create({ regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] });
    await eventually(async () => expect(await scheduledRegions(monitor.id)).toEqual(["hostA-ams", "hostB-fra"]));
    const scheduler = await queue("hostB-fra").getJobScheduler(schedulerId(monitor.id));
    expect(scheduler).toMatchObject({ every: 60_000, template: { data: { monitorId: monitor.id, kind: "http", trigger: "scheduled" } } });
    expect((scheduler!.template!.data as { config: { url: string } }).config.url).toBe("http://127.0.0.1:9/");
  });

  it("schedules nothing for an inactive monitor, and the default region for one without regions", async () => {
    const inactive = await create({ active: false });
    const plain = await create();
    await eventually(async () => expect(await scheduledRegions(plain.id)).toEqual(["hostA-ams"]));
    expect(await scheduledRegions(inactive.id)).toEqual([]);
  });

  it("follows updates of regions, periodicity and active, and deletion, at once", async () => {
    const monitor = await create({ regions: [Region.HOSTA_AMS] });
    await eventually(async () => expect(await scheduledRegions(monitor.id)).toEqual(["hostA-ams"]));
    await client.updateHTTPMonitor({ id: monitor.id, monitor: { regions: [Region.HOSTB_PAR], periodicity: Periodicity.PERIODICITY_5M } });
    await eventually(async () => expect(await scheduledRegions(monitor.id)).toEqual(["hostB-par"]));
    await eventually(async () => expect((await queue("hostB-par").getJobScheduler(schedulerId(monitor.id)))?.every).toBe(300_000));
    await client.updateHTTPMonitor({ id: monitor.id, monitor: { timeout: 1234n } });
    await eventually(async () =>
      expect((await queue("hostB-par").getJobScheduler(schedulerId(monitor.id)))?.template?.data).toMatchObject({ config: { timeout: 1234 } }),
    );
    await client.updateHTTPMonitor({ id: monitor.id, monitor: { active: false } });
    await eventually(async () => expect(await scheduledRegions(monitor.id)).toEqual([]));
    await client.updateHTTPMonitor({ id: monitor.id, monitor: { active: true } });
    await eventually(async () => expect(await scheduledRegions(monitor.id)).toEqual(["hostB-par"]));
    await client.deleteMonitor({ id: monitor.id });
    await eventually(async () => expect(await scheduledRegions(monitor.id)).toEqual([]));
  });

  it("spreads monitors of one periodicity over the period", async () => {
    const monitors = await Promise.all(Array.from({ length: 40 }, () => create({ periodicity: Periodicity.PERIODICITY_30S })));
    const offsets = await eventually(async () => {
      const schedulers = await Promise.all(monitors.map((m) => queue("hostA-ams").getJobScheduler(schedulerId(m.id))));
      expect(schedulers.every(Boolean)).toBe(true);
      return schedulers.map((s) => s!.offset ?? 0);
    });
    const seconds = new Set(offsets.map((o) => Math.floor(o / 1000)));
    expect(seconds.size).toBeGreaterThan(15);
    expect(Math.max(...offsets)).toBeLessThanOrEqual(30_000);
  });

  it("rebuilds a flushed Redis from the database and removes schedulers the database does not want", async () => {
    const kept = await create({ regions: [Region.HOSTC_US_EAST4] });
    await eventually(async () => expect(await scheduledRegions(kept.id)).toEqual(["hostC-us-east4"]));
    await deletePrefix(api.redisPrefix);
    expect(await scheduledRegions(kept.id)).toEqual([]);
    await queue("hostC-us-east4").upsertJobScheduler(schedulerId("long-gone"), { every: 60_000 }, { name: "check", data: {} });

    await api.pipeline.reconcile();
    expect(await scheduledRegions(kept.id)).toEqual(["hostC-us-east4"]);
    expect(await queue("hostC-us-east4").getJobScheduler(schedulerId("long-gone"))).toBeUndefined();
  });

  it("writes at a reconciliation only the schedulers that differ from the database", async () => {
    const monitor = await create({ regions: [Region.HOSTA_AMS] });
    await eventually(async () => expect(await scheduledRegions(monitor.id)).toEqual(["hostA-ams"]));
    const { scheduler } = api.pipeline;
    const active = await new MonitorRepository(api.db.prisma).listActive();
    await scheduler.reconcile(active);
    expect(await scheduler.reconcile(active)).toEqual({ upserted: 0, removed: 0 });

    // Changed behind the control plane's back: another check, then another period.
    await queue("hostA-ams").upsertJobScheduler(schedulerId(monitor.id), { every: 60_000 }, { name: "check", data: { monitorId: "someone else" } });
    expect(await scheduler.reconcile(active)).toEqual({ upserted: 1, removed: 0 });
    expect((await queue("hostA-ams").getJobScheduler(schedulerId(monitor.id)))?.template?.data).toMatchObject({ monitorId: monitor.id, config: { url: "http://127.0.0.1:9/" } });
    const { template } = (await queue("hostA-ams").getJobScheduler(schedulerId(monitor.id)))!;
    await queue("hostA-ams").upsertJobScheduler(schedulerId(monitor.id), { every: 300_000 }, { name: "check", data: template!.data, opts: template!.opts });
    expect(await scheduler.reconcile(active)).toEqual({ upserted: 1, removed: 0 });
    expect((await queue("hostA-ams").getJobScheduler(schedulerId(monitor.id)))?.every).toBe(60_000);
    expect(await scheduler.reconcile(active)).toEqual({ upserted: 0, removed: 0 });
  });

  it("lets several control planes reconcile at once without duplicating checks", async () => {
    const replicas = await Promise.all(
      [1, 2].map(() =>
        startPipeline(api.db.prisma, testPipelineConfig(api.redisPrefix), createLogger("silent", "test"), api.notifications.setup),
      ),
    );
    try {
      await Promise.all([...replicas.map((r) => r.reconcile()), api.pipeline.reconcile()]);
      const active = await api.db.prisma.monitor.findMany({ where: { active: true }, select: { id: true, regions: true } });
      for (const region of ["hostA-ams", "hostB-fra", "hostC-us-east4"] as RegionId[]) {
        const schedulers = await queue(region).getJobSchedulers(0, -1);
        const delayed = await queue(region).getDelayed(0, -1);
        const expected = active.filter((m) => (m.regions.length ? m.regions : ["hostA-ams"]).includes(region)).length;
        expect([region, schedulers.length]).toEqual([region, expected]);
        // One next run per scheduler, whoever upserted it.
        const perScheduler = new Map<string, number>();
        for (const job of delayed) perScheduler.set(job.repeatJobKey!, (perScheduler.get(job.repeatJobKey!) ?? 0) + 1);
        expect([...perScheduler.values()].every((n) => n === 1)).toBe(true);
      }
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  });

  it("queues a manual check in every region of the monitor, ahead of scheduled work", async () => {
    const monitor = await create({ regions: [Region.HOSTA_SYD, Region.HOSTB_TYO], active: false });
    await client.triggerMonitor({ id: monitor.id });
    for (const region of ["hostA-syd", "hostB-tyo"] as RegionId[]) {
      const waiting = await queue(region).getWaiting(0, -1);
      expect(waiting.map((job) => [job.data.monitorId, job.data.trigger, job.opts.priority ?? 0])).toEqual([[monitor.id, "manual", 0]]);
    }
  });
});
