import { setTimeout as sleep } from "node:timers/promises";
import type { RegionId } from "@vigil/domain/regions";
import { parseSlot, slotMembersKey, slotRunStart, type RedisConnection, type SlotJobData, type SlotJobTiming, type SlotMember } from "@vigil/queue";

/** A slot's job as BullMQ hands it over. */
export interface SlotJob extends SlotJobTiming {
  id?: string;
  data: SlotJobData;
}

/**
 * How many members one read of a slot's hash asks for. Read and parsed a few
 * hundred at a time, a slot of thousands holds up no check that falls due
 * meanwhile (one HVALS of 3,333 members blocked the event loop up to 12 ms).
 */
const READ_PER_CALL = 200;

/** The slot's members, read in turns (HSCAN may return a field twice: each is kept once). */
async function readMembers(connection: RedisConnection, key: string): Promise<SlotMember[]> {
  const members = new Map<string, SlotMember>();
  let cursor = "0";
  do {
    const [next, flat] = await connection.hscan(key, cursor, "COUNT", READ_PER_CALL);
    for (let i = 0; i + 1 < flat.length; i += 2) members.set(flat[i]!, JSON.parse(flat[i + 1]!) as SlotMember);
    cursor = next;
  } while (cursor !== "0");
  return [...members.values()];
}

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
  // In the order they are due: a run that starts late hands over those already due in that order too.
  const members = (await readMembers(connection, slotMembersKey(region, slot.id, prefix))).sort((a, b) => a.atMs - b.atMs);
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
