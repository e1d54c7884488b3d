import { Redis } from "ioredis";
import { parseMonitorConfig, type RegionId } from "@vigil/domain";
import { SLOT_LEAD_MS, SLOT_WIDTH_MS, slotMembersKey, type SlotMember } from "@vigil/queue";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { runSlot, type SlotJob } from "../src/slot-runs";

/** runSlot against a real Redis: which monitor it hands over, when, and for which due time. */
describe("a slot's run", () => {
  const redis = new Redis(redisServerUrl(), { maxRetriesPerRequest: null });
  const prefix = testPrefix();
  const region: RegionId = "hostA-ams";
  afterAll(async () => {
    await deletePrefix(prefix);
    redis.disconnect();
  });

  const member = (monitorId: string, atMs: number): SlotMember => ({
    atMs,
    check: {
      monitorId,
      kind: "tcp",
      trigger: "scheduled",
      config: parseMonitorConfig("tcp", { name: monitorId, uri: "127.0.0.1:9", periodicity: "30s" }),
    },
  });

  /**
   * A slot of 30 s monitors, its hash holding `members`, and the job of its run starting at `start` (on its grid),
   * due SLOT_LEAD_MS before and written, as BullMQ writes the next run's job, when the run before started.
   */
  async function slotWith(members: SlotMember[], start: number): Promise<SlotJob> {
    const index = (start % 30_000) / SLOT_WIDTH_MS;
    const key = slotMembersKey(region, `30s:${index}`, prefix);
    await redis.del(key);
    await redis.hset(key, Object.fromEntries(members.map((m) => [m.check.monitorId, JSON.stringify(m)])));
    return { id: "a job id that says nothing", timestamp: start - 30_000, opts: { delay: 30_000 - SLOT_LEAD_MS }, data: { slot: `30s:${index}` } };
  }

  const run = (job: SlotJob, fail?: string) => {
    const handed: { monitorId: string; dueAt: number; at: number }[] = [];
    const done = runSlot(job, redis, region, prefix, async ({ check }, dueAt) => {
      handed.push({ monitorId: check.monitorId, dueAt, at: Date.now() });
      if (check.monitorId === fail) throw new Error(`${fail} failed`);
    });
    return { handed, done };
  };

  it("hands each monitor over at its due time, never before", async () => {
    const start = Math.ceil((Date.now() + 300) / SLOT_WIDTH_MS) * SLOT_WIDTH_MS;
    const job = await slotWith([member("c", 99), member("a", 0), member("b", 30)], start);
    const { handed, done } = run(job);
    await done;
    expect(handed.map(({ monitorId, dueAt }) => [monitorId, dueAt])).toEqual([
      ["a", start],
      ["b", start + 30],
      ["c", start + 99],
    ]);
    for (const { dueAt, at } of handed) expect(at).toBeGreaterThanOrEqual(dueAt);
  });

  it("hands over at once the monitors of a run already past, in the order they were due, with the due times of that run", async () => {
    const start = Math.floor((Date.now() - 60_000) / SLOT_WIDTH_MS) * SLOT_WIDTH_MS;
    const job = await slotWith([member("first", 10), member("second", 20), member("third", 30)], start);
    const { handed, done } = run(job);
    await done;
    expect(handed.map(({ monitorId, dueAt }) => [monitorId, dueAt])).toEqual([
      ["first", start + 10],
      ["second", start + 20],
      ["third", start + 30],
    ]);
  });

  it("hands over each monitor of a slot of hundreds once, in the order they are due", async () => {
    const start = Math.floor((Date.now() - 60_000) / SLOT_WIDTH_MS) * SLOT_WIDTH_MS;
    const many = Array.from({ length: 450 }, (_, i) => member(`m${i}`, (i * 7919) % SLOT_WIDTH_MS));
    const { handed, done } = run(await slotWith(many, start));
    await done;
    expect(handed).toHaveLength(450);
    expect(new Set(handed.map(({ monitorId }) => monitorId)).size).toBe(450);
    const dues = handed.map(({ dueAt }) => dueAt);
    expect(dues).toEqual([...dues].sort((a, b) => a - b));
    expect(handed.find(({ monitorId }) => monitorId === "m3")?.dueAt).toBe(start + ((3 * 7919) % SLOT_WIDTH_MS));
  });

  it.each([7_321, 28_999])("gives a job BullMQ wrote %i ms after it was due (its delay clamped at 0) the run it was due for", async (late) => {
    const start = Math.floor((Date.now() - 60_000) / 30_000) * 30_000 + 12 * SLOT_WIDTH_MS;
    const job = await slotWith([member("clamped", 10)], start);
    const { handed, done } = run({ ...job, timestamp: start - SLOT_LEAD_MS + late, opts: { delay: 0 } });
    await done;
    expect(handed.map(({ dueAt }) => dueAt)).toEqual([start + 10]);
  });

  it.each([
    ["already due", 0, 2],
    ["still to come when one fails", 1, 400],
  ])("lets every monitor run when one fails, then fails the run (the rest %s)", async (_, slotsAhead, lastAtMs) => {
    const start = (Math.floor(Date.now() / SLOT_WIDTH_MS) + slotsAhead) * SLOT_WIDTH_MS;
    const job = await slotWith([member("x", 0), member("y", 1), member("z", lastAtMs)], start);
    const { handed, done } = run(job, "y");
    await expect(done).rejects.toThrow("y failed");
    expect(handed.map(({ monitorId }) => monitorId).sort()).toEqual(["x", "y", "z"]);
  });

  it("refuses a job that is not a slot's", async () => {
    await expect(runSlot({ timestamp: 0, opts: {}, data: { slot: "7s:1" } }, redis, region, prefix, async () => {})).rejects.toThrow("not a slot's job");
  });
});
