import { v5 as uuidv5 } from "uuid";
import type { PrismaClient } from "@vigil/db";
import { REMINDER_EVENT, reminderDue } from "@vigil/domain";
import type { EventDetails } from "./message";
import { insertDeliveries, insertEvents, type EventRow } from "./record";

/** How often control planes look for reminders due; a reminder is late by at most this. */
export const REMINDER_SWEEP_MS = 15_000;

/** The namespace of reminder ids (a random UUID, fixed here): the same reminder has the same id on every control plane. */
const REMINDER_NAMESPACE = "3c0b8e5e-7d8f-4f5e-9a57-4a1f0d6c2b19";

interface Due {
  incident_id: string;
  workspace_id: string;
  monitor_id: string;
  started_at: Date;
  channel_id: string;
  reminder_minutes: number;
}

/**
 * Reminders of open, unacknowledged incidents (a channel's reminderMinutes),
 * sent through the delivery outbox like every alert. Every control plane
 * sweeps; a reminder's event id is derived from (incident, channel, number),
 * so the control plane that inserts it first is the only one that sends it,
 * and a restart neither loses nor repeats one. The clock is injected so that
 * tests run hours of reminders at once.
 */
export class Reminders {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly enqueue: (eventIds: readonly string[]) => Promise<void>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Records and queues the reminders due now; returns how many this control plane sends. */
  async sweep(now = this.clock()): Promise<number> {
    const eventIds = await this.prisma.$transaction(async (tx) => {
      const due = (
        await tx.$queryRaw<Due[]>`
          SELECT i.id AS incident_id, i.workspace_id, i.monitor_id, i.started_at, c.id AS channel_id, c.reminder_minutes
          FROM incidents i
          JOIN notification_monitors l ON l.monitor_id = i.monitor_id
          JOIN notification_channels c ON c.id = l.notification_id
          WHERE i.resolved_at IS NULL AND i.acknowledged_at IS NULL AND c.reminder_minutes > 0`
      ).filter((row) => reminderDue(row.started_at, row.reminder_minutes, now) > 0);
      if (due.length === 0) return [];
      const latest = new Map(
        (
          await tx.alertEvent.findMany({
            where: { incidentId: { in: [...new Set(due.map((d) => d.incident_id))] }, type: { in: ["monitor.failed", "monitor.degraded"] } },
            orderBy: [{ occurredAt: "asc" }, { id: "asc" }],
          })
        ).map((event) => [event.incidentId, event]),
      );
      const reminders = due.flatMap((row) => {
        const alert = latest.get(row.incident_id);
        if (!alert) return [];
        const number = reminderDue(row.started_at, row.reminder_minutes, now);
        const occurredAt = new Date(row.started_at.getTime() + number * row.reminder_minutes * 60_000);
        const event: EventRow = {
          id: uuidv5(`${row.incident_id}/${row.channel_id}/${number}`, REMINDER_NAMESPACE),
          workspaceId: row.workspace_id,
          monitorId: row.monitor_id,
          incidentId: row.incident_id,
          type: REMINDER_EVENT,
          fromStatus: alert.toStatus,
          toStatus: alert.toStatus,
          occurredAt,
          details: { ...(alert.details as unknown as EventDetails), reminder: number, durationMs: occurredAt.getTime() - row.started_at.getTime() },
        };
        return [{ notificationId: row.channel_id, event }];
      });
      const inserted = await insertEvents(tx, reminders.map((r) => r.event));
      return insertDeliveries(tx, reminders.filter((r) => inserted.has(r.event.id)));
    });
    await this.enqueue(eventIds);
    return eventIds.length;
  }
}
