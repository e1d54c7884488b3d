import DataLoader from "dataloader";
import type { PrismaClient } from "@vigil/db";
import type { Channel } from "@vigil/notifications";
import type { StoredEvent } from "./message";

/** A delivery still to be sent, with its event and channel. */
export interface PendingDelivery {
  id: string;
  /** Attempts made so far. */
  attempts: number;
  event: StoredEvent;
  channel: Channel;
}

export interface Outcome {
  id: string;
  outcome: "pending" | "delivered" | "failed";
  attempts: number;
  statusCode: number | null;
  error: string | null;
  completedAt: Date | null;
}

/** Channels by id with their secrets decrypted; deleted ones are missing. */
export type ChannelLoader = (ids: readonly string[]) => Promise<Map<string, Channel>>;

/**
 * How long the statements of the deliveries in flight (their reads, writes and
 * acknowledgement links) wait for each other. In an outage a hundred jobs start
 * within a few milliseconds: one statement for all of them costs the database
 * and this process (whose CPU is the limit then) a fraction of a hundred, for
 * a wait no one notices.
 */
const GATHER_MS = 5;
/** DataLoader's options for a statement gathered across the deliveries in flight: every load is its own (no cache). */
export const gatherInFlight = { cache: false, batchScheduleFn: (send: () => void) => setTimeout(send, GATHER_MS) } as const;

type Row = { id: string; notificationId: string; eventId: string | null; attempts: number; alertEvent: StoredEvent | null };

/**
 * The delivery worker's reads and writes, each gathered across the jobs in
 * flight into one statement: a job reads its deliveries with their event and
 * channel, and records each provider's answer, as if alone.
 */
export class DeliveryStore {
  private readonly untried: DataLoader<string, PendingDelivery[]>;
  private readonly byId: DataLoader<string, PendingDelivery | null>;
  private readonly outcomes: DataLoader<Outcome, void>;

  constructor(prisma: PrismaClient, loadChannels: ChannelLoader) {
    // Deliveries whose channel or monitor (hence event) is gone have nothing left to send.
    const withChannels = async (rows: Row[]): Promise<PendingDelivery[]> => {
      const channels = await loadChannels([...new Set(rows.map((row) => row.notificationId))]);
      return rows.flatMap((row) => {
        const channel = channels.get(row.notificationId);
        return row.alertEvent && channel ? [{ id: row.id, attempts: row.attempts, event: row.alertEvent, channel }] : [];
      });
    };
    this.untried = new DataLoader(async (eventIds) => {
      const rows = await prisma.notificationDelivery.findMany({
        where: { eventId: { in: [...eventIds] }, outcome: "pending", attempts: 0 },
        include: { alertEvent: true },
        orderBy: { id: "asc" },
      });
      const deliveries = await withChannels(rows);
      return eventIds.map((eventId) => deliveries.filter((d) => d.event.id === eventId));
    }, gatherInFlight);
    this.byId = new DataLoader(async (ids) => {
      const rows = await prisma.notificationDelivery.findMany({ where: { id: { in: [...ids] }, outcome: "pending" }, include: { alertEvent: true } });
      const found = new Map((await withChannels(rows)).map((d) => [d.id, d]));
      return ids.map((id) => found.get(id) ?? null);
    }, gatherInFlight);
    this.outcomes = new DataLoader(async (outcomes) => {
      // A delivery is recorded only while pending: a late duplicate job changes nothing.
      await prisma.$executeRaw`
        UPDATE notification_deliveries AS d
        SET outcome = o.outcome, attempts = o.attempts, status_code = o.status_code, error = o.error, completed_at = o.completed_at
        FROM unnest(
          ${outcomes.map((o) => o.id)}::text[], ${outcomes.map((o) => o.outcome)}::text[], ${outcomes.map((o) => o.attempts)}::int[],
          ${outcomes.map((o) => o.statusCode)}::int[], ${outcomes.map((o) => o.error)}::text[], ${outcomes.map((o) => o.completedAt)}::timestamp(3)[]
        ) AS o(id, outcome, attempts, status_code, error, completed_at)
        WHERE d.id = o.id AND d.outcome = 'pending'`;
      return outcomes.map(() => undefined);
    }, gatherInFlight);
  }

  /** The event's deliveries never tried yet. */
  untriedOf(eventId: string): Promise<PendingDelivery[]> {
    return this.untried.load(eventId);
  }

  /** The delivery if it is still pending and its event and channel exist (else it was sent already, or they are gone). */
  pending(id: string): Promise<PendingDelivery | null> {
    return this.byId.load(id);
  }

  record(outcome: Outcome): Promise<void> {
    return this.outcomes.load(outcome);
  }
}
