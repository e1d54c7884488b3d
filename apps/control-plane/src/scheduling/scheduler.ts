import { createHash, randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { Job, Queue } from "bullmq";
import { PERIODICITY_MS, REGION_IDS, type MonitorRecord, type RegionId } from "@vigil/domain";
import { checkedRegions } from "../status/rules";
import { checkQueueName, schedulerId, type CheckJobData, type Trigger, type RedisConnection } from "@vigil/queue";
import { startReconciliation } from "../metrics/record";

/** Scheduled checks wait behind checks asked for on demand, which carry no priority (BullMQ runs those first). */
const SCHEDULED_PRIORITY = 10;
const CLEANUP = { removeOnComplete: true, removeOnFail: true } as const;
/**
 * Schedulers a reconciliation reads or writes per round trip: all at once would
 * queue 100,000 commands in Redis ahead of the agents' (runs seconds late).
 */
const RECONCILE_CHUNK = 1_000;

/** Runs `work` on `items` RECONCILE_CHUNK at a time, one chunk after the other, handing `each` every item with its answer. */
async function inChunks<T, R>(items: readonly T[], work: (chunk: T[]) => Promise<R[]>, each?: (item: T, answer: R) => void): Promise<void> {
  for (let from = 0; from < items.length; from += RECONCILE_CHUNK) {
    const chunk = items.slice(from, from + RECONCILE_CHUNK);
    const answers = await work(chunk);
    chunk.forEach((item, i) => each?.(item, answers[i]!));
  }
}

/**
 * Spreads monitors of one periodicity over their period: the same monitor
 * always gets the same offset, so every replica computes the same schedule.
 * Never 0, which BullMQ takes as no offset (the monitor would run from the
 * moment of each upsert instead): a whole period gives the same slots.
 */
export function scheduleOffset(monitorId: string, periodMs: number): number {
  return createHash("sha256").update(monitorId).digest().readUInt32BE(0) % periodMs || periodMs;
}

const jobData = (record: MonitorRecord, trigger: Trigger) =>
  ({ monitorId: record.id, kind: record.kind, config: record.config, trigger }) as CheckJobData;

const repeatOf = (record: MonitorRecord) => {
  const every = PERIODICITY_MS[record.config.periodicity];
  return { every, offset: scheduleOffset(record.id, every) };
};

/** What a reconciliation compares of a scheduler in Redis: BullMQ's hash `<repeat key>:<id>` and its score in the repeat key. */
interface StoredScheduler {
  next: number;
  every: string | null;
  offset: string | null;
  data: string | null;
  opts: string | null;
}

/**
 * Whether a scheduler in Redis already does what the monitor asks: the same
 * period, offset and check, and a next run that is not more than a period
 * overdue (one that is has lost its job, and writing it again makes a new one).
 */
function isUpToDate(scheduler: StoredScheduler, record: MonitorRecord, now: number): boolean {
  const { every, offset } = repeatOf(record);
  return (
    Number(scheduler.every) === every &&
    Number(scheduler.offset) === offset &&
    scheduler.next >= now - every &&
    scheduler.data !== null &&
    isDeepStrictEqual(JSON.parse(scheduler.data), jobData(record, "scheduled")) &&
    Job.optsFromJSON(scheduler.opts ?? undefined).priority === SCHEDULED_PRIORITY
  );
}

/**
 * Keeps one BullMQ job scheduler per (active monitor, region) on that
 * region's queue. The database is the source of truth: every change calls
 * schedule/unschedule, and reconcile() rebuilds Redis from the monitors.
 */
export class CheckScheduler {
  private readonly queues = new Map<RegionId, Queue>();
  /**
   * Counts schedule and unschedule calls. A reconciliation works from the
   * monitors it read at its start; when this moved during it, a change may
   * have been undone and the reconciliation must run again.
   */
  changes = 0;

  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
    /** Where monitors without regions of their own are checked. */
    readonly defaultRegions: readonly RegionId[],
  ) {}

  regionsOf(record: MonitorRecord): readonly RegionId[] {
    return checkedRegions(record.config.regions, this);
  }

  /** Brings a monitor's schedulers in line with its configuration (none when inactive). */
  async schedule(record: MonitorRecord): Promise<void> {
    this.changes++;
    const wanted = new Set(record.config.active ? this.regionsOf(record) : []);
    await Promise.all(
      REGION_IDS.map((region) => (wanted.has(region) ? this.upsert(region, record) : this.remove(region, record.id))),
    );
  }

  async unschedule(monitorId: string): Promise<void> {
    this.changes++;
    await Promise.all(REGION_IDS.map((region) => this.remove(region, monitorId)));
  }

  /** Queues an immediate check in every region of the monitor, ahead of scheduled work. */
  async trigger(record: MonitorRecord): Promise<void> {
    await Promise.all(
      this.regionsOf(record).map((region) =>
        this.queue(region).add("check", jobData(record, "manual"), { jobId: `manual:${record.id}:${randomUUID()}`, ...CLEANUP }),
      ),
    );
  }

  /**
   * Makes Redis match the given active monitors: writes every scheduler that
   * is missing, differs from its monitor or has fallen behind, and removes
   * every other one (monitors deleted, deactivated, or moved out of a region
   * while Redis was unreachable, or a flushed Redis). Schedulers already right
   * are left alone: upserting one moves its next job, which is work for Redis
   * and delay for the agents at every periodic reconciliation. Reads and
   * writes go in chunks, one round trip each, so that the agents' commands
   * are served between them even with 100,000 schedulers.
   */
  async reconcile(active: MonitorRecord[]): Promise<{ upserted: number; removed: number }> {
    const reconciled = startReconciliation();
    let upserted = 0;
    let removed = 0;
    let missing = 0;
    for (const region of REGION_IDS) {
      const queue = this.queue(region);
      const wanted = active.filter((record) => this.regionsOf(record).includes(region));
      const wantedIds = new Set(wanted.map((record) => schedulerId(record.id)));
      const existing = await this.nextRuns(queue);
      const stale = [...existing.keys()].filter((id) => !wantedIds.has(id));
      const outdated = wanted.filter((record) => !existing.has(schedulerId(record.id)));
      missing += outdated.length;
      await inChunks(
        wanted.filter((record) => existing.has(schedulerId(record.id))),
        (chunk) => this.stored(queue, chunk.map((record) => schedulerId(record.id)), existing),
        (record, scheduler) => {
          if (!scheduler || !isUpToDate(scheduler, record, Date.now())) outdated.push(record);
        },
      );
      await inChunks(stale, (chunk) => Promise.all(chunk.map((id) => queue.removeJobScheduler(id))));
      await inChunks(outdated, (chunk) => Promise.all(chunk.map((record) => this.upsert(region, record))));
      upserted += outdated.length;
      removed += stale.length;
    }
    reconciled({ missing, stale: removed });
    return { upserted, removed };
  }

  /**
   * The queue's schedulers and their next runs, read with ZSCAN a page at a
   * time: unlike pages by rank, it misses none while the agents move them.
   */
  private async nextRuns(queue: Queue): Promise<Map<string, number>> {
    const runs = new Map<string, number>();
    let cursor = "0";
    do {
      const [next, page] = await this.connection.zscan(queue.keys.repeat!, cursor, "COUNT", RECONCILE_CHUNK);
      // Member, score, member, score, ...
      for (let i = 0; i < page.length; i += 2) runs.set(page[i]!, Number(page[i + 1]));
      cursor = next;
    } while (cursor !== "0");
    return runs;
  }

  /**
   * The stored fields of the schedulers `ids`, in one pipeline of HMGET: a Lua
   * call each (queue.getJobScheduler) cost Redis several times more, and with
   * 100,000 schedulers held the agents' runs back by seconds.
   */
  private async stored(queue: Queue, ids: string[], nextRuns: Map<string, number>): Promise<(StoredScheduler | undefined)[]> {
    const pipeline = this.connection.pipeline();
    for (const id of ids) pipeline.hmget(`${queue.keys.repeat}:${id}`, "every", "offset", "data", "opts");
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, fields], i) => {
      if (error) throw error;
      const [every = null, offset = null, data = null, opts = null] = fields as (string | null)[];
      // Gone since the scan (removed by another control plane): written again like a missing one.
      return every === null ? undefined : { next: nextRuns.get(ids[i]!)!, every, offset, data, opts };
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }

  queue(region: RegionId): Queue {
    let queue = this.queues.get(region);
    if (!queue) {
      queue = new Queue(checkQueueName(region), { connection: this.connection, prefix: this.prefix });
      // Each command failing while Redis is away would be printed on the console; the outage is logged once (logConnectionChanges).
      queue.on("error", () => {});
      this.queues.set(region, queue);
    }
    return queue;
  }

  private async upsert(region: RegionId, record: MonitorRecord): Promise<void> {
    const { every, offset } = repeatOf(record);
    await this.queue(region).upsertJobScheduler(
      schedulerId(record.id),
      { every, offset },
      { name: "check", data: jobData(record, "scheduled"), opts: { priority: SCHEDULED_PRIORITY, ...CLEANUP } },
    );
  }

  private async remove(region: RegionId, monitorId: string): Promise<void> {
    await this.queue(region).removeJobScheduler(schedulerId(monitorId));
  }
}
