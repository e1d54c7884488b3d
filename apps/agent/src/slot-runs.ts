import { setTimeout as sleep } from "node:timers/promises";
import type { RegionId } from "@vigil/domain";
import { parseSlot, slotMembersKey, slotRunStart, type RedisConnection, type SlotJobData, type SlotJobTiming, type SlotMember } from "@vigil/queue";

/** A slot's job as BullMQ hands it over. */
export interface SlotJob extends SlotJobTiming {
  id?: string;
  data: SlotJobData;
}

/**
 * Runs one run of a slot (packages/queue/src/slots.ts): reads the slot's
 * monitors as they are now, and hands each to `runDue` at the moment it is
 * due, at once for those already due (a job that waited for a busy agent, or
 * runs again after its agent died). Resolves once every one has finished;
 * throws the first failure then, so the job is only done when all are.
 */
export async function runSlot(
  job: SlotJob,
  connection: RedisConnection,
  region: RegionId,
  prefix: string,
  runDue: (member: SlotMember, dueAt: number) => Promise<void>,
): Promise<void> {
  const slot = parseSlot(job.data.slot);
  if (!slot) throw new Error(`not a slot's job: ${job.id} ${JSON.stringify(job.data)}`);
  const start = slotRunStart(job, slot);
  // In the order they are due: a run that starts late hands over those already due in that order too.
  const members = (await connection.hvals(slotMembersKey(region, slot.id, prefix)))
    .map((stored) => JSON.parse(stored) as SlotMember)
    .sort((a, b) => a.atMs - b.atMs);
  const runs = await Promise.allSettled(
    members.map(async (member) => {
      const dueAt = start + member.atMs;
      // A timer may fire a millisecond early by the wall clock: a check never starts before it is due.
      for (let wait = dueAt - Date.now(); wait > 0; wait = dueAt - Date.now()) await sleep(wait);
      await runDue(member, dueAt);
    }),
  );
  const failed = runs.find((run) => run.status === "rejected");
  if (failed) throw failed.reason;
}
