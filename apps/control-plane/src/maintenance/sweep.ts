import { Prisma, type PrismaClient } from "@vigil/db";
import { inMaintenance, occurrencesBetween, type MaintenanceView, type Occurrence } from "@vigil/domain";
import type { Logger } from "@vigil/logging";
import { regionsAt, newestAt, type Transition } from "../status/evaluate";
import type { StatusRules } from "../status/rules";
import type { TransitionSink } from "../status/statuses";
import { lockMonitors } from "../status/store";
import type { Changes } from "../changes/changes";
import type { MaintenanceEvents } from "./events";
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
 * "Maintenance"); starts and ends are told to MaintenanceEvents and to the
 * public pages of the components named (their cache). Every control
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
      for (const occurrence of occurrencesBetween(window, since, new Date(now.getTime() + 1))) {
        if (occurrence.startsAt > since && occurrence.startsAt <= now && (await this.claim(window.id, "started", occurrence.startsAt))) {
          pages.forEach((page) => this.pageChanges.publish(page));
          await this.tell("started", window, occurrence);
        }
        if (occurrence.endsAt > since && occurrence.endsAt <= now) {
          const ended = await this.end(window, occurrence);
          if (ended !== null) {
            alerts += ended;
            pages.forEach((page) => this.pageChanges.publish(page));
            await this.tell("completed", window, occurrence);
          }
        }
      }
    }
    return alerts;
  }

  private async claim(windowId: string, kind: Mark, at: Date, tx: Prisma.TransactionClient | PrismaClient = this.prisma): Promise<boolean> {
    const inserted = await tx.$executeRaw`INSERT INTO maintenance_window_marks (window_id, kind, at) VALUES (${windowId}, ${kind}, ${at}) ON CONFLICT DO NOTHING`;
    return inserted > 0;
  }

  /** Claims the end and alerts for the monitors still failing; null when another control plane had claimed it. */
  private async end(window: MaintenanceView, occurrence: Occurrence): Promise<number | null> {
    const result = await this.prisma.$transaction(async (tx) => {
      if (!(await this.claim(window.id, "completed", occurrence.endsAt, tx))) return null;
      const at = occurrence.endsAt;
      const monitors = await lockMonitors(tx, window.monitorIds, this.rules);
      const open = new Set((await tx.incident.findMany({ where: { monitorId: { in: window.monitorIds }, resolvedAt: null }, select: { monitorId: true } })).map((i) => i.monitorId));
      const windows = await windowsOfMonitors(tx, window.monitorIds);
      const transitions: Transition[] = [...monitors.values()]
        .filter((m) => (m.status === "error" || m.status === "degraded") && !open.has(m.id) && !inMaintenance(windows.get(m.id) ?? [], at))
        .map((monitor) => ({ monitor, from: "active", to: monitor.status, at, regions: regionsAt(monitor, at), newest: newestAt(monitor, at) }));
      return { count: transitions.length, eventIds: await this.transitions.record(tx, transitions) };
    });
    if (result === null) return null;
    // The events are stored; what fails to queue now, the deliveries' sweep queues.
    await this.transitions.enqueue(result.eventIds).catch(() => undefined);
    return result.count;
  }

  private async tell(what: Mark, window: MaintenanceView, occurrence: Occurrence): Promise<void> {
    await this.events[what](window, occurrence).catch((error: unknown) => this.logger.warn({ err: error, windowId: window.id, what }, "telling of a maintenance failed"));
  }
}
