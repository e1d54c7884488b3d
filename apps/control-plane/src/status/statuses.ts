import type { PrismaClient } from "@vigil/db";
import type { MonitorStatus, RegionId } from "@vigil/domain";
import { recordTransitions } from "../alerting/record";
import type { StatusRules } from "./rules";
import { currentRegionStatuses, reevaluateStatuses } from "./store";

/**
 * The control plane's one answer to "which regions count and what the
 * status is", for the API (GetMonitorStatus, updates that change regions) as
 * for result ingest (results/store.ts); the scheduler asks rules.ts's checkedRegions.
 */
export class Statuses {
  constructor(
    private readonly prisma: PrismaClient,
    readonly rules: StatusRules,
    /** Queues the deliveries of events once the transaction that created them has committed. */
    private readonly enqueue: (eventIds: readonly string[]) => Promise<void>,
  ) {}

  /** Each checked region's status now (unknown when stale or never checked). */
  regions(monitorId: string): Promise<{ region: RegionId; status: MonitorStatus }[]> {
    return currentRegionStatuses(this.prisma, monitorId, this.rules);
  }

  /**
   * Evaluates monitors again after their regions changed: dropping the only
   * failing region recovers a monitor, and that is told like any recovery.
   */
  async reevaluate(monitorIds: readonly string[]): Promise<void> {
    const eventIds = await this.prisma.$transaction(async (tx) => recordTransitions(tx, await reevaluateStatuses(tx, monitorIds, this.rules)));
    // Not awaited: an update must answer while Redis is away. The events are stored; what fails to queue now, the deliveries' sweep queues.
    this.enqueue(eventIds).catch(() => undefined);
  }
}
