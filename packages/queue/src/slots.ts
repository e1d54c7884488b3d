import { createHash } from "node:crypto";
import { PERIODICITIES, PERIODICITY_MS, type Periodicity } from "@vigil/domain/periodicity";
import type { RegionId } from "@vigil/domain/regions";
import { DEFAULT_PREFIX } from "./names";
import type { CheckJobData } from "./messages";

/**
 * How scheduled checks are laid out in Redis (docs/checks.md#the-flow).
 *
 * Each period is cut into slots one second wide. A region's queue holds one
 * BullMQ job scheduler per slot that has monitors, and the slot's monitors
 * are a Redis hash beside it (`slotMembersKey`). When a slot's job comes due,
 * an agent reads the hash and starts each monitor's check at its own moment
 * within the slot. Redis and the agent then do a job's work (BullMQ's
 * scheduling, fetching and completing) per slot rather than per check, and a
 * slot's job costs about the same whatever its members: a region runs at
 * most one slot job a second per periodicity, whether it has ten monitors or
 * 100,000. A second bounds how long an agent that shuts down keeps handing
 * over the checks of a slot it took.
 */
export const SLOT_WIDTH_MS = 1_000;

/** How many slots a period has: 30 at 30 s, 3,600 at 1 h. */
export const slotsPerPeriod = (periodicity: Periodicity) => PERIODICITY_MS[periodicity] / SLOT_WIDTH_MS;

/**
 * Where in its period a monitor is checked, in [0, period): the same for a
 * monitor on every replica, and spread evenly over the period.
 */
export function scheduleOffset(monitorId: string, periodMs: number): number {
  return createHash("sha256").update(monitorId).digest().readUInt32BE(0) % periodMs;
}

export interface Slot {
  /** `<periodicity>:<index>`, e.g. `30s:17`. */
  id: string;
  periodicity: Periodicity;
  index: number;
  /** The slot's start within the period. */
  offsetMs: number;
}

export function slotAt(periodicity: Periodicity, index: number): Slot {
  return { id: `${periodicity}:${index}`, periodicity, index, offsetMs: index * SLOT_WIDTH_MS };
}

/** The slot named by an id such as `30s:17`; undefined for anything else. */
export function parseSlot(id: string): Slot | undefined {
  const [periodicity, index, ...rest] = id.split(":");
  const number = Number(index);
  if (rest.length > 0 || !(periodicity! in PERIODICITY_MS) || !Number.isInteger(number) || number < 0 || number >= slotsPerPeriod(periodicity as Periodicity)) return undefined;
  return slotAt(periodicity as Periodicity, number);
}

/** The slot a monitor is checked in at a periodicity, and how long after the slot's start. */
export function slotOf(monitorId: string, periodicity: Periodicity): { slot: Slot; atMs: number } {
  const offset = scheduleOffset(monitorId, PERIODICITY_MS[periodicity]);
  const slot = slotAt(periodicity, Math.floor(offset / SLOT_WIDTH_MS));
  return { slot, atMs: offset - slot.offsetMs };
}

/** Every slot a monitor may be in, one per periodicity: where a change must remove it from. */
export const slotsOf = (monitorId: string) => PERIODICITIES.map((periodicity) => slotOf(monitorId, periodicity).slot);

/** The job scheduler of a slot on its region's queue. */
export const slotSchedulerId = (slot: Slot) => `slot:${slot.id}`;

/** What a slot's job carries: which slot; its monitors are read when it runs. */
export interface SlotJobData {
  slot: string;
}
export const SLOT_JOB = "slot";

/** A monitor in a slot's hash (field: the monitor's id). */
export interface SlotMember {
  /** When its check starts after the slot's start, in ms. */
  atMs: number;
  check: CheckJobData;
}

/** The hash of a slot's monitors in a region. */
export const slotMembersKey = (region: RegionId, slotId: string, prefix: string = DEFAULT_PREFIX) => `${prefix}:slots:${region}:${slotId}`;
/** The set of a region's slots that have (or had) a hash of monitors: what a reconciliation reads instead of scanning keys. */
export const slotIndexKey = (region: RegionId, prefix: string = DEFAULT_PREFIX) => `${prefix}:slots:${region}`;

/**
 * How long before a slot starts its job comes due: taking a job from the
 * queue takes a few ms, and up to ~100 ms when Redis or the agent is busy;
 * done ahead, it delays no check (each waits for its own moment).
 */
export const SLOT_LEAD_MS = 1_000;

/** Where a slot's job is due in each period (a scheduler's offset). */
export const slotJobOffset = (slot: Slot) => {
  const period = PERIODICITY_MS[slot.periodicity];
  return (slot.offsetMs - SLOT_LEAD_MS + period) % period;
};

/**
 * The start of the slot's run whose job is due at `due` (a scheduler's next
 * run, or a job's): the last start on the slot's grid at or before
 * `due + SLOT_LEAD_MS`. A job BullMQ wrote once it was already due (a
 * scheduler upserted while its job waited) counts from when it was written,
 * which is after its run's due time: the last start then is that run's.
 */
export function slotStartAfter(due: number, slot: Slot): number {
  const period = PERIODICITY_MS[slot.periodicity];
  return Math.floor((due + SLOT_LEAD_MS - slot.offsetMs) / period) * period + slot.offsetMs;
}

/** What of a slot's job tells its run: when BullMQ created it and how long it was to wait (Job's `timestamp` and `opts.delay`). */
export interface SlotJobTiming {
  timestamp: number;
  opts: { delay?: number };
}

/**
 * The start of the slot's run a job is for. A scheduler's job waits from its
 * creation until it is due, so creation plus delay is the due time; BullMQ
 * clamps the delay at 0 for a job written once already due, and
 * slotStartAfter takes the run before then.
 */
export const slotRunStart = (job: SlotJobTiming, slot: Slot) => slotStartAfter(job.timestamp + (job.opts.delay ?? 0), slot);

/**
 * The id of a scheduled check's result: the region, the monitor and the time
 * it was due. A slot's job that runs twice (its agent died mid-slot) yields
 * the same ids, so the control plane stores each result once.
 */
export const scheduledResultId = (region: RegionId, monitorId: string, dueAt: number) => `${region}:scheduled:${monitorId}:${dueAt}`;
