import { createHash, randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { Queue, type JobSchedulerJson } from "bullmq";
import { PERIODICITY_MS, REGION_IDS, type MonitorRecord, type RegionId } from "@vigil/domain";
import { checkedRegions } from "../status/rules";
import { checkQueueName, schedulerId, type CheckJobData, type Trigger, type RedisConnection } from "@vigil/queue";
import { startReconciliation } from "../metrics/record";

/** Scheduled checks wait behind checks asked for on demand, which carry no priority (BullMQ runs those first). */
const SCHEDULED_PRIORITY = 10;
const CLEANUP = { removeOnComplete: true, removeOnFail: true } as const;

/**
 * Spreads monitors of one periodicity over their period: the same monitor
 * always gets the same offset, so every replica computes the same schedule.
 */
export function scheduleOffset(monitorId: string, periodMs: number): number {
  return createHash("sha256").update(monitorId).digest().readUInt32BE(0) % periodMs;
}

const jobData = (record: MonitorRecord, trigger: Trigger) =>
  ({ monitorId: record.id, kind: record.kind, config: record.config, trigger }) as CheckJobData;

const repeatOf = (record: MonitorRecord) => {
  const every = PERIODICITY_MS[record.config.periodicity];
  return { every, offset: scheduleOffset(record.id, every) };
};

/**
 * Whether a scheduler in Redis already does what the monitor asks: the same
 * period, offset and check, and a next run that is not more than a period
 * overdue (one that is has lost its job, and writing it again makes a new one).
 */
function isUpToDate(scheduler: JobSchedulerJson | undefined, record: MonitorRecord, now: number): boolean {
  if (!scheduler) return false;
  const { every, offset } = repeatOf(record);
  // BullMQ leaves a zero offset out of what it answers.
  return (
    scheduler.every === every &&
    (scheduler.offset ?? 0) === offset &&
    scheduler.next !== undefined &&
    scheduler.next >= now - every &&
    isDeepStrictEqual(scheduler.template?.data, jobData(record, "scheduled")) &&
    scheduler.template?.opts?.priority === SCHEDULED_PRIORITY
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
   * and delay for the agents at every periodic reconciliation.
   */
  async reconcile(active: MonitorRecord[]): Promise<{ upserted: number; removed: number }> {
    const reconciled = startReconciliation();
    let upserted = 0;
    let removed = 0;
    let missing = 0;
    for (const region of REGION_IDS) {
      const wanted = active.filter((record) => this.regionsOf(record).includes(region));
      const wantedIds = new Set(wanted.map((record) => schedulerId(record.id)));
      const existing = await this.queue(region).getJobSchedulers(0, -1);
      const stale = existing.filter((s) => !wantedIds.has(s.key));
      const current = new Map(existing.map((s) => [s.key, s]));
      const now = Date.now();
      const outdated = wanted.filter((record) => !isUpToDate(current.get(schedulerId(record.id)), record, now));
      await Promise.all(stale.map((s) => this.queue(region).removeJobScheduler(s.key)));
      await Promise.all(outdated.map((record) => this.upsert(region, record)));
      upserted += outdated.length;
      removed += stale.length;
      missing += wantedIds.size - (existing.length - stale.length);
    }
    reconciled({ missing, stale: removed });
    return { upserted, removed };
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
