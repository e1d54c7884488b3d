import type { Client } from "@connectrpc/connect";
import { REGION_IDS, type RegionId } from "@vigil/domain";
import { MonitorService, Periodicity, Region } from "@vigil/proto";
import { SLOT_JOB, SLOT_LEAD_MS, SLOT_WIDTH_MS, slotIndexKey, slotJobOffset, slotMembersKey, slotOf, slotSchedulerId, slotsPerPeriod } from "@vigil/queue";
import { deletePrefix } from "../../../test/redis";
import { testPipelineConfig } from "./support/control-plane";
import { startPipeline } from "../src/pipeline";
import { MonitorRepository } from "../src/monitors/repository";
import { createLogger } from "@vigil/logging";
import { eventually } from "../../../test/eventually";
import { startTestApi, type TestApi } from "./support/api";

describe("scheduling checks in Redis", () => {
  let api: TestApi;
  let client: Client<typeof MonitorService>;
  const queue = (region: RegionId) => api.pipeline.scheduler.queue(region);
  const scheduledIn = (region: RegionId, monitorId: string) => api.pipeline.scheduler.scheduledIn(region, monitorId);
  /** The regions where the monitor is a member of a slot whose scheduler exists. */
  const scheduledRegions = async (monitorId: string) => {
    const found = await Promise.all(REGION_IDS.map(async (r) => ((await scheduledIn(r, monitorId))?.nextRunAt !== undefined ? r : null)));
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

  it("puts each active monitor in its slot in each of its regions, carrying its configuration, under a scheduler at its period", async () => {
    const monitor = await create({ regions: [Region.HOSTA_AMS, Region.HOSTB_FRA] });
    await eventually(async () => expect(await scheduledRegions(monitor.id)).toEqual(["hostA-ams", "hostB-fra"]));
    const { slot, member, nextRunAt } = (await scheduledIn("hostB-fra", monitor.id))!;
    expect(member.check).toMatchObject({ monitorId: monitor.id, kind: "http", trigger: "scheduled", config: { url: "http://127.0.0.1:9/" } });
    expect(slot.periodicity).toBe("1m");
    expect(member.atMs).toBeGreaterThanOrEqual(0);
    expect(member.atMs).toBeLessThan(SLOT_WIDTH_MS);
    const scheduler = await queue("hostB-fra").getJobScheduler(slotSchedulerId(slot));
    expect(scheduler).toMatchObject({ every: 60_000, offset: slotJobOffset(slot) || 60_000, template: { data: { slot: slot.id } } });
    // Due at its own moment of the slot, in the slot's next run: the job comes due within a period, SLOT_LEAD_MS before the run starts.
    expect((nextRunAt! - slot.offsetMs - member.atMs) % 60_000).toBe(0);
    expect(nextRunAt! - member.atMs - Date.now()).toBeLessThanOrEqual(60_000 + SLOT_LEAD_MS);
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
    expect((await scheduledIn("hostB-par", monitor.id))?.slot.periodicity).toBe("5m");
    await client.updateHTTPMonitor({ id: monitor.id, monitor: { timeout: 1234n } });
    expect((await scheduledIn("hostB-par", monitor.id))?.member.check).toMatchObject({ config: { timeout: 1234 } });
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
      const scheduled = await Promise.all(monitors.map((m) => scheduledIn("hostA-ams", m.id)));
      expect(scheduled.every((s) => s?.nextRunAt !== undefined)).toBe(true);
      return scheduled.map((s) => s!.slot.offsetMs + s!.member.atMs);
    });
    const seconds = new Set(offsets.map((o) => Math.floor(o / 1000)));
    expect(seconds.size).toBeGreaterThan(15);
    expect(Math.max(...offsets)).toBeLessThan(30_000);
  });

  it("keeps one scheduler per slot however many monitors share it", async () => {
    const monitor = await create({ regions: [Region.HOSTA_LHR], periodicity: Periodicity.PERIODICITY_30M });
    const record = (await new MonitorRepository(api.db.prisma).listActive()).find((r) => r.id === monitor.id)!;
    const { slot, atMs } = slotOf(monitor.id, "30m");
    // Three more monitors of the same slot, each at a millisecond of its own in it (ids found by trying: two of
    // four hashed into 1,000 ms share one 0.6 % of the time), scheduled as the service schedules a monitor.
    const sharing: string[] = [];
    const taken = new Set([atMs]);
    for (let i = 0; sharing.length < 3; i++) {
      const at = slotOf(`${monitor.id}-${i}`, "30m");
      if (at.slot.id !== slot.id || taken.has(at.atMs)) continue;
      taken.add(at.atMs);
      sharing.push(`${monitor.id}-${i}`);
    }
    for (const id of sharing) await api.pipeline.scheduler.schedule({ ...record, id });

    const scheduled = await Promise.all([monitor.id, ...sharing].map((id) => scheduledIn("hostA-lhr", id)));
    expect(scheduled.map((s) => s?.slot.id)).toEqual([slot.id, slot.id, slot.id, slot.id]);
    expect(new Set(scheduled.map((s) => s!.nextRunAt)).size).toBe(4);
    const schedulers = await queue("hostA-lhr").getJobSchedulers(0, -1);
    expect(schedulers.filter((s) => s.key === slotSchedulerId(slot))).toHaveLength(1);
    expect(await queue("hostA-lhr").getDelayed(0, -1)).toHaveLength(1);
    for (const id of sharing) await api.pipeline.scheduler.unschedule(id);
  });

  it("rebuilds a flushed Redis from the database and removes members, slots and schedulers the database does not want", async () => {
    const kept = await create({ regions: [Region.HOSTC_US_EAST4] });
    await eventually(async () => expect(await scheduledRegions(kept.id)).toEqual(["hostC-us-east4"]));
    await deletePrefix(api.redisPrefix);
    // A scheduler of the layout before slots (one per monitor), and a monitor the database no longer has.
    await queue("hostC-us-east4").upsertJobScheduler("monitor:long-gone", { every: 60_000 }, { name: "check", data: {} });
    const redis = api.pipeline.redis;
    // A slot other than the kept monitor's own, which the rebuild fills again.
    const stale = slotOf(kept.id, "1m").slot.id === "1m:7" ? "1m:8" : "1m:7";
    await redis.hset(slotMembersKey("hostC-us-east4", stale, api.redisPrefix), "long-gone", JSON.stringify({ atMs: 0, check: {} }));
    await redis.sadd(slotIndexKey("hostC-us-east4", api.redisPrefix), stale);
    // A slot of a width this version does not cut periods into, with its scheduler: an earlier version's layout.
    const foreign = `1m:${slotsPerPeriod("1m") + 7}`;
    await queue("hostC-us-east4").upsertJobScheduler(`slot:${foreign}`, { every: 60_000 }, { name: SLOT_JOB, data: { slot: foreign } });
    await redis.hset(slotMembersKey("hostC-us-east4", foreign, api.redisPrefix), kept.id, JSON.stringify({ atMs: 0, check: {} }));
    await redis.sadd(slotIndexKey("hostC-us-east4", api.redisPrefix), foreign);

    await api.pipeline.reconcile();
    expect(await scheduledRegions(kept.id)).toEqual(["hostC-us-east4"]);
    expect(await queue("hostC-us-east4").getJobScheduler("monitor:long-gone")).toBeUndefined();
    expect(await redis.hlen(slotMembersKey("hostC-us-east4", stale, api.redisPrefix))).toBe(0);
    expect(await queue("hostC-us-east4").getJobScheduler(`slot:${foreign}`)).toBeUndefined();
    expect(await redis.exists(slotMembersKey("hostC-us-east4", foreign, api.redisPrefix))).toBe(0);
    expect(await redis.sismember(slotIndexKey("hostC-us-east4", api.redisPrefix), foreign)).toBe(0);
  });

  it("writes at a reconciliation only the members and schedulers that differ from the database", async () => {
    const monitor = await create({ regions: [Region.HOSTA_AMS] });
    await eventually(async () => expect(await scheduledRegions(monitor.id)).toEqual(["hostA-ams"]));
    const { scheduler, redis } = api.pipeline;
    const nothing = { upserted: 0, removed: 0, schedulers: { upserted: 0, removed: 0 } };
    const active = await new MonitorRepository(api.db.prisma).listActive();
    await scheduler.reconcile(active);
    expect(await scheduler.reconcile(active)).toEqual(nothing);

    // Changed behind the control plane's back: another check, then another period for its slot.
    const { slot, member } = (await scheduledIn("hostA-ams", monitor.id))!;
    await redis.hset(slotMembersKey("hostA-ams", slot.id, api.redisPrefix), monitor.id, JSON.stringify({ ...member, check: { ...member.check, monitorId: "someone else" } }));
    expect(await scheduler.reconcile(active)).toEqual({ ...nothing, upserted: 1 });
    expect((await scheduledIn("hostA-ams", monitor.id))?.member).toEqual(member);
    const { template } = (await queue("hostA-ams").getJobScheduler(slotSchedulerId(slot)))!;
    await queue("hostA-ams").upsertJobScheduler(slotSchedulerId(slot), { every: 300_000 }, { name: SLOT_JOB, data: template!.data, opts: template!.opts });
    expect(await scheduler.reconcile(active)).toEqual({ ...nothing, schedulers: { upserted: 1, removed: 0 } });
    expect((await queue("hostA-ams").getJobScheduler(slotSchedulerId(slot)))?.every).toBe(60_000);
    expect(await scheduler.reconcile(active)).toEqual(nothing);
  });

  it("leaves the schedules of monitors changed after its list was read as their changes wrote them", async () => {
    const changed = await create({ regions: [Region.HOSTA_AMS] });
    await eventually(async () => expect(await scheduledRegions(changed.id)).toEqual(["hostA-ams"]));
    const { scheduler } = api.pipeline;
    const listedAt = scheduler.changes;
    const listed = await new MonitorRepository(api.db.prisma).listActive();
    // Changed, and created, after the list was read: the list has the old timeout, and not the new monitor.
    await client.updateHTTPMonitor({ id: changed.id, monitor: { timeout: 4321n } });
    const created = await create({ regions: [Region.HOSTC_US_EAST4], periodicity: Periodicity.PERIODICITY_10M });
    await scheduler.reconcile(listed, listedAt);
    expect((await scheduledIn("hostA-ams", changed.id))?.member.check).toMatchObject({ config: { timeout: 4321 } });
    expect(await scheduledRegions(created.id)).toEqual(["hostC-us-east4"]);
    // Without its count, the same stale list is the truth: what the changes wrote is undone.
    await scheduler.reconcile(listed);
    expect((await scheduledIn("hostA-ams", changed.id))?.member.check).toMatchObject({ config: { timeout: 45000 } });
    expect(await scheduledRegions(created.id)).toEqual([]);
    await api.pipeline.reconcile();
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
      for (const region of ["hostA-ams", "hostB-fra", "hostC-us-east4", "hostA-lhr"] as RegionId[]) {
        const expected = active.filter((m) => (m.regions.length ? m.regions : ["hostA-ams"]).includes(region));
        const scheduled = await Promise.all(expected.map((m) => scheduledIn(region, m.id)));
        expect([region, scheduled.filter((s) => s?.nextRunAt !== undefined).length]).toEqual([region, expected.length]);
        // One scheduler per slot in use, and one next run per scheduler, whoever upserted it.
        const schedulers = await queue(region).getJobSchedulers(0, -1);
        expect(schedulers.map((s) => s.key).sort()).toEqual([...new Set(scheduled.map((s) => slotSchedulerId(s!.slot)))].sort());
        const delayed = await queue(region).getDelayed(0, -1);
        const perScheduler = new Map<string | undefined, string[]>();
        for (const job of delayed) perScheduler.set(job.repeatJobKey, [...(perScheduler.get(job.repeatJobKey) ?? []), job.id!]);
        const repeated = [...perScheduler.values()].filter((ids) => ids.length > 1);
        expect([region, repeated]).toEqual([region, []]);
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
