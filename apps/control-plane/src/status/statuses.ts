import type { Prisma, PrismaClient } from "@vigil/db";
import type { MonitorStatus, RegionId } from "@vigil/domain";
import type { Transition } from "./evaluate";
import type { StatusRules } from "./rules";
import { currentRegions, reevaluateStatuses, type CurrentRegions } from "./store";

/**
 * Where the transitions of a re-evaluation go (the pipeline wires it to alerting, which imports
 * this module and never the other way round).
 */
export interface TransitionSink {
  /** Records transitions in the transaction that caused them; returns the ids of the events to queue once it committed. */
  record(tx: Prisma.TransactionClient, transitions: readonly Transition[]): Promise<string[]>;
  enqueue(eventIds: readonly string[]): Promise<void>;
}

/**
 * The control plane's one answer to "which regions count and what the
 * status is", for the API (GetMonitorStatus, updates that change regions) as
 * for result ingest (results/store.ts); the scheduler asks rules.ts's checkedRegions.
 */
export class Statuses {
  constructor(
    private readonly prisma: PrismaClient,
    readonly rules: StatusRules,
    private readonly transitions: TransitionSink,
  ) {}

  /** Each checked region's status now (unknown when stale or never checked). */
  async regions(monitorId: string): Promise<{ region: RegionId; status: MonitorStatus }[]> {
    return (await this.current([monitorId])).get(monitorId)?.regions ?? [];
  }

  /** What is known now of each of the monitors (those that exist). */
  current(monitorIds: readonly string[]): Promise<Map<string, CurrentRegions>> {
    return currentRegions(this.prisma, monitorIds, this.rules);
  }

  /**
   * Evaluates monitors again after their regions changed: dropping the only
   * failing region recovers a monitor, and that is told like any recovery.
   */
  async reevaluate(monitorIds: readonly string[]): Promise<void> {
    const eventIds = await this.prisma.$transaction(async (tx) => this.transitions.record(tx, await reevaluateStatuses(tx, monitorIds, this.rules)));
    // Not awaited: an update must answer while Redis is away. The events are stored; what fails to queue now, the deliveries' sweep queues.
    this.transitions.enqueue(eventIds).catch(() => undefined);
  }
}
