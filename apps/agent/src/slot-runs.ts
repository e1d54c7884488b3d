import { setImmediate, setTimeout as sleep } from "node:timers/promises";
import type { RegionId } from "@vigil/domain";
import { parseSlot, slotMembersKey, slotRunStart, type RedisConnection, type SlotJobData, type SlotJobTiming, type SlotMember } from "@vigil/queue";

/** A slot's job as BullMQ hands it over. */
export interface SlotJob extends SlotJobTiming {
  id?: string;
  data: SlotJobData;
}

/** How many members are parsed between two turns of the event loop: a slot of thousands holds up no check that falls due meanwhile. */
const PARSED_PER_TURN = 200;

/**
 * Runs one run of a slot (packages/queue/src/slots.ts): reads the slot's
 * monitors as they are now, and hands each to `runDue` at the moment it is
 * due, at once for those already due (a job that waited for a busy agent, or
 * runs again after its agent died). One timer at a time waits for the next
 * moment, so a slot of thousands of monitors costs no burst of timers when
 * its job is taken. Resolves once every one has finished; throws the first
 * failure then, so the job is only done when all are.
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
  const stored = await connection.hvals(slotMembersKey(region, slot.id, prefix));
  const members: SlotMember[] = [];
  for (let i = 0; i < stored.length; i += PARSED_PER_TURN) {
    if (i > 0) await setImmediate();
    for (const text of stored.slice(i, i + PARSED_PER_TURN)) members.push(JSON.parse(text) as SlotMember);
  }
  // In the order they are due: a run that starts late hands over those already due in that order too.
  members.sort((a, b) => a.atMs - b.atMs);
  const runs: Promise<void>[] = [];
  let failed: { reason: unknown } | undefined;
  for (const member of members) {
    const dueAt = start + member.atMs;
    // A timer may fire a millisecond early by the wall clock: a check never starts before it is due.
    for (let wait = dueAt - Date.now(); wait > 0; wait = dueAt - Date.now()) await sleep(wait);
    // Caught at once: a failure while later members wait is the run's, not an unhandled rejection.
    runs.push(runDue(member, dueAt).catch((reason: unknown) => void (failed ??= { reason })));
  }
  await Promise.all(runs);
  if (failed) throw failed.reason;
}
