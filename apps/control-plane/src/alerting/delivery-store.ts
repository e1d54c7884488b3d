import DataLoader from "dataloader";
import type { PrismaClient } from "@vigil/db";
import type { Channel } from "@vigil/notifications";
import type { StoredEvent } from "./message";

/** A delivery still to be sent, with its event and channel. */
export interface PendingDelivery {
  id: string;
  attempts: number;
  event: StoredEvent & { type: string };
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
 * How long reads and writes of the deliveries in flight wait for each other.
 * In an outage a hundred jobs start within a few milliseconds: one statement
 * for all of them costs the database and this process (whose CPU is the
 * limit then) a fraction of a hundred, for a wait no one notices.
 */
const GATHER_MS = 5;
const gather = { cache: false, batchScheduleFn: (send: () => void) => setTimeout(send, GATHER_MS) } as const;

/**
 * The delivery worker's reads and writes, each gathered across the jobs in
 * flight into one statement: a job reads its delivery with its event and
 * channel, and records the provider's answer, as if alone.
 */
export class DeliveryStore {
  private readonly deliveries: DataLoader<string, PendingDelivery | null>;
  private readonly outcomes: DataLoader<Outcome, void>;

  constructor(prisma: PrismaClient, loadChannels: ChannelLoader) {
    this.deliveries = new DataLoader(async (ids) => {
      const rows = await prisma.notificationDelivery.findMany({ where: { id: { in: [...ids] }, outcome: "pending" }, include: { alertEvent: true } });
      const channels = await loadChannels([...new Set(rows.map((row) => row.notificationId))]);
      const found = new Map<string, PendingDelivery>();
      for (const row of rows) {
        const channel = channels.get(row.notificationId);
        if (row.alertEvent && channel) found.set(row.id, { id: row.id, attempts: row.attempts, event: row.alertEvent, channel });
      }
      return ids.map((id) => found.get(id) ?? null);
    }, gather);
    this.outcomes = new DataLoader(async (outcomes) => {
      // A delivery is recorded once: only while pending, so a late duplicate job changes nothing.
      await prisma.$executeRaw`
        UPDATE notification_deliveries AS d
        SET outcome = o.outcome, attempts = o.attempts, status_code = o.status_code, error = o.error, completed_at = o.completed_at
        FROM unnest(
          ${outcomes.map((o) => o.id)}::text[], ${outcomes.map((o) => o.outcome)}::text[], ${outcomes.map((o) => o.attempts)}::int[],
          ${outcomes.map((o) => o.statusCode)}::int[], ${outcomes.map((o) => o.error)}::text[], ${outcomes.map((o) => o.completedAt)}::timestamp(3)[]
        ) AS o(id, outcome, attempts, status_code, error, completed_at)
        WHERE d.id = o.id AND d.outcome = 'pending'`;
      return outcomes.map(() => undefined);
    }, gather);
  }

  /** The delivery if it is still pending and its event and channel exist (else it was sent already, or they are gone). */
  pending(id: string): Promise<PendingDelivery | null> {
    return this.deliveries.load(id);
  }

  record(outcome: Outcome): Promise<void> {
    return this.outcomes.load(outcome);
  }
}
