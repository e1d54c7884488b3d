import { Redis } from "ioredis";
import { parseMonitorConfig, type RegionId } from "@vigil/domain";
import { SLOT_LEAD_MS, slotMembersKey, type SlotMember } from "@vigil/queue";
import { deletePrefix, redisServerUrl, testPrefix } from "../../../test/redis";
import { runSlot } from "../src/slot-runs";

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

  /** A slot of 30 s monitors, its hash holding `members`, and the job of its run starting at `start` (on its grid), due SLOT_LEAD_MS before. */
  async function slotWith(members: SlotMember[], start: number) {
    const index = (start % 30_000) / 100;
    const key = slotMembersKey(region, `30s:${index}`, prefix);
    await redis.del(key);
    await redis.hset(key, Object.fromEntries(members.map((m) => [m.check.monitorId, JSON.stringify(m)])));
    return { id: `repeat:slot:30s:${index}:${start - SLOT_LEAD_MS}`, data: { slot: `30s:${index}` } };
  }

  const run = (job: { id: string; data: { slot: string } }, fail?: string) => {
    const handed: { monitorId: string; dueAt: number; at: number }[] = [];
    const done = runSlot(job, redis, region, prefix, async ({ check }, dueAt) => {
      handed.push({ monitorId: check.monitorId, dueAt, at: Date.now() });
      if (check.monitorId === fail) throw new Error(`${fail} failed`);
    });
    return { handed, done };
  };

  it("hands each monitor over at its due time, never before", async () => {
    const start = Math.ceil((Date.now() + 300) / 100) * 100;
    const job = await slotWith([member("a", 0), member("b", 30), member("c", 99)], start);
    const { handed, done } = run(job);
    await done;
    expect(handed.map(({ monitorId, dueAt }) => [monitorId, dueAt])).toEqual([
      ["a", start],
      ["b", start + 30],
      ["c", start + 99],
    ]);
    for (const { dueAt, at } of handed) expect(at).toBeGreaterThanOrEqual(dueAt);
  });

  it("hands over at once the monitors of a run already past, with the due times of that run", async () => {
    const start = Math.floor((Date.now() - 60_000) / 100) * 100;
    const job = await slotWith([member("late", 50)], start);
    const { handed, done } = run(job);
    await done;
    expect(handed.map(({ monitorId, dueAt }) => [monitorId, dueAt])).toEqual([["late", start + 50]]);
  });

  it("places a run whose job BullMQ had to move later onto the slot's grid", async () => {
    const start = Math.floor((Date.now() - 60_000) / 30_000) * 30_000 + 1_200;
    const job = await slotWith([member("moved", 10)], start);
    const { handed, done } = run({ ...job, id: `repeat:slot:30s:12:${start - SLOT_LEAD_MS + 7_321}` });
    await done;
    expect(handed.map(({ dueAt }) => dueAt)).toEqual([start + 10]);
  });

  it("lets every monitor run when one fails, then fails the run", async () => {
    const start = Math.floor(Date.now() / 100) * 100;
    const job = await slotWith([member("x", 0), member("y", 1), member("z", 2)], start);
    const { handed, done } = run(job, "y");
    await expect(done).rejects.toThrow("y failed");
    expect(handed.map(({ monitorId }) => monitorId).sort()).toEqual(["x", "y", "z"]);
  });

  it("refuses a job that is not a slot's", async () => {
    await expect(runSlot({ id: "repeat:slot:7s:1:0", data: { slot: "7s:1" } }, redis, region, prefix, async () => {})).rejects.toThrow("not a slot's job");
  });
});
