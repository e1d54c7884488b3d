import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { Queue, type JobSchedulerJson } from "bullmq";
import { PERIODICITY_MS, REGION_IDS, type MonitorRecord, type RegionId } from "@vigil/domain";
import { checkedRegions } from "../status/rules";
import {
  SLOT_JOB,
  checkQueueName,
  parseSlot,
  slotIndexKey,
  slotJobOffset,
  slotMembersKey,
  slotOf,
  slotSchedulerId,
  slotStartAfter,
  slotsOf,
  type CheckJobData,
  type RedisConnection,
  type Slot,
  type SlotJobData,
  type SlotMember,
  type Trigger,
} from "@vigil/queue";
import { startReconciliation } from "../metrics/record";

/** Scheduled checks wait behind checks asked for on demand, which carry no priority (BullMQ runs those first). */
const SCHEDULED_PRIORITY = 10;
const CLEANUP = { removeOnComplete: true, removeOnFail: true } as const;
/**
 * Schedulers or member writes a reconciliation sends per round trip: all at
 * once would queue 100,000 commands in Redis ahead of the agents' (runs
 * seconds late).
 */
const RECONCILE_CHUNK = 1_000;
/** Slots whose monitors a reconciliation reads per round trip (a few hundred monitors each at 100,000). */
const SLOT_READ_CHUNK = 10;

/** Runs `work` on `items` `size` at a time, one chunk after the other, handing `each` every item with its answer. */
async function inChunks<T, R>(items: readonly T[], work: (chunk: T[]) => Promise<R[]>, each?: (item: T, answer: R) => void, size = RECONCILE_CHUNK): Promise<void> {
  for (let from = 0; from < items.length; from += size) {
    const chunk = items.slice(from, from + size);
    const answers = await work(chunk);
    chunk.forEach((item, i) => each?.(item, answers[i]!));
  }
}

/** The answers of a pipeline or transaction, throwing the first command's error. */
async function answersOf(replies: Promise<[Error | null, unknown][] | null>): Promise<unknown[]> {
  return ((await replies) ?? []).map(([error, answer]) => {
    if (error) throw error;
    return answer;
  });
}

const jobData = (record: MonitorRecord, trigger: Trigger) =>
  ({ monitorId: record.id, kind: record.kind, config: record.config, trigger }) as CheckJobData;

/** A monitor's place in its slot and the check its agent runs there. */
function memberOf(record: MonitorRecord): { slot: Slot; member: SlotMember } {
  const { slot, atMs } = slotOf(record.id, record.config.periodicity);
  return { slot, member: { atMs, check: jobData(record, "scheduled") } };
}

/** BullMQ reads an offset of 0 as none (the slot would run from the moment of each upsert): a whole period gives the same times. */
const repeatOf = (slot: Slot) => {
  const every = PERIODICITY_MS[slot.periodicity];
  return { every, offset: slotJobOffset(slot) || every };
};
const slotJob = (slot: Slot) => ({ name: SLOT_JOB, data: { slot: slot.id } satisfies SlotJobData, opts: { priority: SCHEDULED_PRIORITY, ...CLEANUP } });

/** A slot the database wants in a region, and its monitors by id. */
interface WantedSlot {
  slot: Slot;
  members: Map<string, SlotMember>;
}

/**
 * Whether a slot's scheduler in Redis already does what the slot needs: its
 * period and offset, its job, and a next run that is not more than a period
 * overdue (one that is has lost its job, and writing it again makes a new one).
 */
function isUpToDate(scheduler: JobSchedulerJson, slot: Slot, now: number): boolean {
  const { every, offset } = repeatOf(slot);
  return (
    scheduler.every === every &&
    scheduler.offset === offset &&
    scheduler.next !== undefined &&
    scheduler.next >= now - every &&
    isDeepStrictEqual(scheduler.template?.data, slotJob(slot).data) &&
    scheduler.template?.opts?.priority === SCHEDULED_PRIORITY
  );
}

/** What a reconciliation wrote: monitors' memberships (a monitor in a region's slot), and slots' schedulers. */
export interface Reconciled {
  upserted: number;
  removed: number;
  schedulers: { upserted: number; removed: number };
}

/** A monitor's schedule in one region, as its agents will find it. */
export interface Scheduled {
  slot: Slot;
  member: SlotMember;
  /** When its next scheduled check is due (epoch ms); undefined while its slot has no scheduler. */
  nextRunAt: number | undefined;
}

/**
 * Keeps the schedules of active monitors in each region's queue, laid out in
 * slots (packages/queue/src/slots.ts): a monitor is a member of its slot's
 * hash in each of its regions, and each slot with members has a BullMQ job
 * scheduler. The database is the source of truth: every change calls
 * schedule/unschedule, and reconcile() rebuilds Redis from the monitors.
 */
export class CheckScheduler {
  private readonly queues = new Map<RegionId, Queue>();
  /**
   * Counts schedule and unschedule calls. A reconciliation works from the
   * monitors it read at its start: it leaves alone the monitors changed since
   * (their schedules are newer than its list), and when this moved during it,
   * it runs again.
   */
  changes = 0;
  /** The count at each monitor's last change, until no reconciliation can have read it before that change. */
  private readonly changedAt = new Map<string, number>();
  /** The `listedAt` of each reconciliation under way. */
  private readonly reconciling: number[] = [];

  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
    /** Where monitors without regions of their own are checked. */
    readonly defaultRegions: readonly RegionId[],
  ) {}

  regionsOf(record: MonitorRecord): readonly RegionId[] {
    return checkedRegions(record.config.regions, this);
  }

  /**
   * Brings a monitor's schedules in line with its configuration, in one
   * transaction: a member of its slot in each of its regions, and of no other
   * slot anywhere (none when inactive); then gives its slots a scheduler where
   * they have none yet.
   */
  async schedule(record: MonitorRecord): Promise<void> {
    this.changedAt.set(record.id, ++this.changes);
    const wanted = new Set(record.config.active ? this.regionsOf(record) : []);
    const { slot, member } = memberOf(record);
    const everySlot = slotsOf(record.id);
    const transaction = this.connection.multi();
    for (const region of REGION_IDS) {
      for (const other of everySlot) {
        if (wanted.has(region) && other.id === slot.id) continue;
        transaction.hdel(this.membersKey(region, other), record.id);
      }
      if (wanted.has(region)) {
        transaction.hset(this.membersKey(region, slot), record.id, JSON.stringify(member));
        transaction.sadd(slotIndexKey(region, this.prefix), slot.id);
      }
    }
    await answersOf(transaction.exec());
    await this.ensureSchedulers([...wanted], slot);
  }

  async unschedule(monitorId: string): Promise<void> {
    this.changedAt.set(monitorId, ++this.changes);
    const everySlot = slotsOf(monitorId);
    const transaction = this.connection.multi();
    for (const region of REGION_IDS) for (const slot of everySlot) transaction.hdel(this.membersKey(region, slot), monitorId);
    await answersOf(transaction.exec());
  }

  /** Queues an immediate check in every region of the monitor, ahead of scheduled work. */
  async trigger(record: MonitorRecord): Promise<void> {
    await Promise.all(
      this.regionsOf(record).map((region) =>
        this.queue(region).add("check", jobData(record, "manual"), { jobId: `manual:${record.id}:${randomUUID()}`, ...CLEANUP }),
      ),
    );
  }

  /** Where and when a monitor is checked in a region; undefined when it is not. */
  async scheduledIn(region: RegionId, monitorId: string): Promise<Scheduled | undefined> {
    const everySlot = slotsOf(monitorId);
    const pipeline = this.connection.pipeline();
    for (const slot of everySlot) pipeline.hget(this.membersKey(region, slot), monitorId);
    const stored = (await answersOf(pipeline.exec())) as (string | null)[];
    const at = stored.findIndex((member) => member !== null);
    if (at < 0) return undefined;
    const [slot, member] = [everySlot[at]!, JSON.parse(stored[at]!) as SlotMember];
    const next = (await this.queue(region).getJobScheduler(slotSchedulerId(slot)))?.next;
    return { slot, member, nextRunAt: next === undefined ? undefined : slotStartAfter(next, slot) + member.atMs };
  }

  /**
   * Makes Redis match the given active monitors: writes every member that is
   * missing or differs from its monitor, removes every other one (monitors
   * deleted, deactivated, moved to another slot or out of a region while
   * Redis was unreachable), writes the scheduler of every slot with members
   * that is missing, differs or has fallen behind, and removes every other
   * scheduler (slots left empty, schedulers of older versions). What is
   * already right is left alone: upserting a scheduler moves its next job,
   * which is work for Redis and delay for the agents at every periodic
   * reconciliation. Reads and writes go in chunks, one round trip each, so
   * that the agents' commands are served between them. Monitors changed
   * after `listedAt` (the count of changes when `active` was read) keep the
   * schedules their changes wrote: those came from newer records than the list.
   */
  async reconcile(active: MonitorRecord[], listedAt = this.changes): Promise<Reconciled> {
    this.reconciling.push(listedAt);
    try {
      return await this.reconcileAll(active, listedAt);
    } finally {
      this.reconciling.splice(this.reconciling.indexOf(listedAt), 1);
      // What no reconciliation under way, nor any later one, read before it.
      const oldest = Math.min(listedAt, ...this.reconciling);
      for (const [monitorId, at] of this.changedAt) if (at <= oldest) this.changedAt.delete(monitorId);
    }
  }

  private async reconcileAll(active: MonitorRecord[], listedAt: number): Promise<Reconciled> {
    const reconciled = startReconciliation();
    let upserted = 0;
    let removed = 0;
    const schedulers = { upserted: 0, removed: 0 };
    const wantedByRegion = this.slotsByRegion(active);
    for (const region of REGION_IDS) {
      const wanted = wantedByRegion.get(region) ?? new Map<string, WantedSlot>();
      const members = await this.reconcileMembers(region, wanted, listedAt);
      upserted += members.upserted;
      removed += members.removed;
      const written = await this.reconcileSchedulers(region, [...wanted.values()].map(({ slot }) => slot), listedAt);
      schedulers.upserted += written.upserted;
      schedulers.removed += written.removed;
    }
    reconciled({ missing: upserted, stale: removed });
    return { upserted, removed, schedulers };
  }

  /** Whether the monitor changed after `listedAt` (the count when a reconciliation's list was read). */
  private changedAfter(listedAt: number, monitorId: string): boolean {
    return (this.changedAt.get(monitorId) ?? 0) > listedAt;
  }

  /** Every slot a monitor changed after `listedAt` may be in, by id: the change wrote those. */
  private slotsChangedAfter(listedAt: number): Map<string, Slot> {
    const changed = [...this.changedAt].filter(([, at]) => at > listedAt).map(([monitorId]) => monitorId);
    return new Map(changed.flatMap((monitorId) => slotsOf(monitorId).map((slot) => [slot.id, slot] as const)));
  }

  /** Each region's wanted slots by id, with their members: one pass over the monitors, each placed once. */
  private slotsByRegion(active: MonitorRecord[]): Map<RegionId, Map<string, WantedSlot>> {
    const byRegion = new Map<RegionId, Map<string, WantedSlot>>();
    for (const record of active) {
      const { slot, member } = memberOf(record);
      for (const region of this.regionsOf(record)) {
        let slots = byRegion.get(region);
        if (!slots) byRegion.set(region, (slots = new Map()));
        let wanted = slots.get(slot.id);
        if (!wanted) slots.set(slot.id, (wanted = { slot, members: new Map() }));
        wanted.members.set(record.id, member);
      }
    }
    return byRegion;
  }

  /**
   * A monitor changed after the list was read (`listedAt`) has the members its change wrote; they are left alone.
   * Asked again as each write goes out: a change counts itself before its own commands go out on the same
   * connection, so either it is seen then and its members left alone, or its commands follow ours and win.
   */
  private async reconcileMembers(region: RegionId, wanted: Map<string, WantedSlot>, listedAt: number): Promise<{ upserted: number; removed: number }> {
    const newer = (monitorId: string) => this.changedAfter(listedAt, monitorId);
    const index = slotIndexKey(region, this.prefix);
    const ids = (await this.connection.smembers(index)) as string[];
    const indexed: Slot[] = [];
    const foreign: string[] = [];
    for (const id of ids) {
      const slot = parseSlot(id);
      if (slot) indexed.push(slot);
      else foreign.push(id);
    }
    const slots = [...wanted.values()].map(({ slot }) => slot);
    for (const slot of indexed) if (!wanted.has(slot.id)) slots.push(slot);
    const writes: ((pipeline: ReturnType<RedisConnection["pipeline"]>) => void)[] = [];
    // Slots their period does not have (an earlier version's narrower slots): their monitors are all wanted elsewhere.
    if (foreign.length > 0) writes.push((pipeline) => void pipeline.del(...foreign.map((id) => slotMembersKey(region, id, this.prefix))).srem(index, ...foreign));
    let upserted = 0;
    let removed = 0;
    await inChunks(
      slots,
      (chunk) => {
        const pipeline = this.connection.pipeline();
        for (const slot of chunk) pipeline.hgetall(this.membersKey(region, slot));
        return answersOf(pipeline.exec()) as Promise<Record<string, string>[]>;
      },
      (slot, stored) => {
        const key = this.membersKey(region, slot);
        const members = wanted.get(slot.id)?.members ?? new Map<string, SlotMember>();
        for (const [monitorId, member] of members) {
          const current = stored[monitorId];
          if (newer(monitorId) || (current !== undefined && isDeepStrictEqual(JSON.parse(current), member))) continue;
          upserted++;
          writes.push((pipeline) => void (newer(monitorId) || pipeline.hset(key, monitorId, JSON.stringify(member))));
        }
        const others = Object.keys(stored).filter((monitorId) => !members.has(monitorId));
        for (const monitorId of others) {
          if (newer(monitorId)) continue;
          removed++;
          writes.push((pipeline) => void (newer(monitorId) || pipeline.hdel(key, monitorId)));
        }
        // A slot left empty leaves the index, unless a change may just have put a monitor in it.
        if (members.size === 0) writes.push((pipeline) => void (this.slotsChangedAfter(listedAt).has(slot.id) || pipeline.srem(index, slot.id)));
      },
      SLOT_READ_CHUNK,
    );
    if (wanted.size > 0) writes.push((pipeline) => pipeline.sadd(index, ...wanted.keys()));
    await inChunks(writes, async (chunk) => {
      const pipeline = this.connection.pipeline();
      for (const write of chunk) write(pipeline);
      return answersOf(pipeline.exec());
    });
    return { upserted, removed };
  }

  private async reconcileSchedulers(region: RegionId, slots: Slot[], listedAt: number): Promise<{ upserted: number; removed: number }> {
    const queue = this.queue(region);
    // A region has at most one scheduler per second of each period (6,390), read at once: pages by rank
    // would miss some while the agents move them.
    const existing = new Map((await queue.getJobSchedulers(0, -1)).map((scheduler) => [scheduler.key, scheduler]));
    const wantedIds = new Set(slots.map(slotSchedulerId));
    const changed = new Set([...this.slotsChangedAfter(listedAt).values()].map(slotSchedulerId));
    const stale = [...existing.keys()].filter((id) => !wantedIds.has(id) && !changed.has(id));
    const now = Date.now();
    const outdated = slots.filter((slot) => {
      const scheduler = existing.get(slotSchedulerId(slot));
      return !scheduler || !isUpToDate(scheduler, slot, now);
    });
    await inChunks(stale, (chunk) => Promise.all(chunk.map((id) => queue.removeJobScheduler(id))));
    await inChunks(outdated, (chunk) => Promise.all(chunk.map((slot) => this.upsert(region, slot))));
    return { upserted: outdated.length, removed: stale.length };
  }

  /** Writes the scheduler of `slot` in each region that has none (another control plane may have just written it: the same job either way). */
  private async ensureSchedulers(regions: RegionId[], slot: Slot): Promise<void> {
    const schedulers = await Promise.all(regions.map((region) => this.queue(region).getJobScheduler(slotSchedulerId(slot))));
    await Promise.all(regions.filter((_, i) => schedulers[i] === undefined).map((region) => this.upsert(region, slot)));
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }

  queue(region: RegionId): Queue {
    let queue = this.queues.get(region);
    if (!queue) {
      queue = new Queue(checkQueueName(region), { connection: this.connection, prefix: this.prefix });
      // Each command failing while Redis is away would be printed on the console; the outage is logged once (watchRedis).
      queue.on("error", () => {});
      this.queues.set(region, queue);
    }
    return queue;
  }

  private membersKey(region: RegionId, slot: Slot): string {
    return slotMembersKey(region, slot.id, this.prefix);
  }

  private async upsert(region: RegionId, slot: Slot): Promise<void> {
    await this.queue(region).upsertJobScheduler(slotSchedulerId(slot), repeatOf(slot), slotJob(slot));
  }
}
