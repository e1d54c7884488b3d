import type { Prisma, PrismaClient } from "@vigil/db";
import { inMaintenance, occurrencesBetween, type MaintenanceView, type Occurrence } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import { regionsAt, newestAt, type Transition } from "../status/evaluate";
import type { StatusRules } from "../status/rules";
import type { TransitionSink } from "../status/statuses";
import { lockMonitors } from "../status/store";
import type { Changes } from "../changes/changes";
import type { AfterCommit, MaintenanceEvents } from "./events";
import { windowsOfMonitors } from "./repository";

/** How often control planes look for occurrences that started or ended; an end's alert is late by at most this. */
export const MAINTENANCE_SWEEP_MS = 15_000;
/** How far back a sweep looks: a control plane down for less than this still alerts at a window's end when it returns. */
export const MAINTENANCE_LOOKBACK_MS = 86_400_000;

type Mark = "started" | "completed";

/**
 * Handles the starts and ends of maintenance occurrences: at an end, each
 * monitor of the window still failing or degraded (and no longer in another
 * window) alerts then, as a failure starting at the end (docs/alerting.md
 * "Maintenance"); starts and ends are told to MaintenanceEvents (in the
 * claiming transaction) and to the public pages of the components named
 * (their cache). Every control
 * plane sweeps; an occurrence's start or end is claimed by inserting its mark
 * (maintenance_window_marks) in the transaction that acts on it, so one control
 * plane acts, once. The clock is injected so that tests end windows at once.
 */
export class MaintenanceSweep {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly rules: StatusRules,
    private readonly transitions: TransitionSink,
    private readonly events: MaintenanceEvents,
    private readonly pageChanges: Changes,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Acts on the starts and ends since the lookback; returns how many alerts this control plane recorded. */
  async sweep(now = this.clock()): Promise<number> {
    const since = new Date(now.getTime() - MAINTENANCE_LOOKBACK_MS);
    // Windows that could have an occurrence overlapping the lookback: a recurring one may, whatever its first.
    const rows = await this.prisma.maintenanceWindow.findMany({
      where: { startsAt: { lte: now }, OR: [{ recurrence: { not: "" } }, { endsAt: { gt: since } }] },
      include: { monitors: { select: { monitorId: true } }, components: { select: { componentId: true, component: { select: { pageId: true } } } } },
    });
    let alerts = 0;
    for (const row of rows) {
      const { monitors, components, ...columns } = row;
      const window: MaintenanceView = { ...columns, monitorIds: monitors.map((m) => m.monitorId), pageComponentIds: components.map((c) => c.componentId) };
      const pages = new Set(components.map((c) => c.component.pageId));
      try {
        for (const occurrence of occurrencesBetween(window, since, new Date(now.getTime() + 1))) {
          if (occurrence.startsAt > since && occurrence.startsAt <= now) {
            const told = await this.start(window, occurrence);
            if (told !== null) {
              pages.forEach((page) => this.pageChanges.publish(page));
              await this.afterCommit("started", window, told);
            }
          }
          if (occurrence.endsAt > since && occurrence.endsAt <= now) {
            const ended = await this.end(window, occurrence);
            if (ended !== null) {
              alerts += ended.count;
              pages.forEach((page) => this.pageChanges.publish(page));
              await this.afterCommit("completed", window, ended.told);
            }
          }
        }
      } catch (error) {
        // Rolled back, so unclaimed: the next sweep acts on it again. The other windows go on.
        this.logger.warn({ err: error, windowId: window.id }, "a maintenance window's start or end failed; retrying at the next sweep");
      }
    }
    return alerts;
  }

  private async claim(windowId: string, kind: Mark, at: Date, tx: Prisma.TransactionClient): Promise<boolean> {
    const inserted = await tx.$executeRaw`INSERT INTO maintenance_window_marks (window_id, kind, at) VALUES (${windowId}, ${kind}, ${at}) ON CONFLICT DO NOTHING`;
    return inserted > 0;
  }

  /** Claims the start and tells of it in one transaction; null when another control plane had claimed it. */
  private start(window: MaintenanceView, occurrence: Occurrence): Promise<AfterCommit | null> {
    return this.prisma.$transaction(async (tx) => ((await this.claim(window.id, "started", occurrence.startsAt, tx)) ? this.events.started(tx, window, occurrence) : null));
  }

  /** Claims the end, alerts for the monitors still failing and tells of it; null when another control plane had claimed it. */
  private async end(window: MaintenanceView, occurrence: Occurrence): Promise<{ count: number; told: AfterCommit } | null> {
    const result = await this.prisma.$transaction(async (tx) => {
      if (!(await this.claim(window.id, "completed", occurrence.endsAt, tx))) return null;
      const at = occurrence.endsAt;
      const monitors = await lockMonitors(tx, window.monitorIds, this.rules);
      const open = new Set((await tx.incident.findMany({ where: { monitorId: { in: window.monitorIds }, resolvedAt: null }, select: { monitorId: true } })).map((i) => i.monitorId));
      const windows = await windowsOfMonitors(tx, window.monitorIds);
      const transitions: Transition[] = [...monitors.values()]
        .filter((m) => (m.status === "error" || m.status === "degraded") && !open.has(m.id) && !inMaintenance(windows.get(m.id) ?? [], at))
        .map((monitor) => ({ monitor, from: "active", to: monitor.status, at, regions: regionsAt(monitor, at), newest: newestAt(monitor, at) }));
      const eventIds = await this.transitions.record(tx, transitions);
      return { count: transitions.length, eventIds, told: await this.events.completed(tx, window, occurrence) };
    });
    if (result === null) return null;
    // The events are stored; what fails to queue now, the deliveries' sweep queues.
    await this.transitions.enqueue(result.eventIds).catch(() => undefined);
    return result;
  }

  private async afterCommit(what: Mark, window: MaintenanceView, told: AfterCommit): Promise<void> {
    await told().catch((error: unknown) => this.logger.warn({ err: error, windowId: window.id, what }, "telling of a maintenance failed"));
  }
}
