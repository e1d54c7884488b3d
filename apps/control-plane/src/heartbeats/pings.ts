import pRetry from "p-retry";
import { v7 as uuidv7 } from "uuid";
import type { PrismaClient } from "@vigil/db";
import { LIMITS, failurePingError, type MonitorStatus, type PingKind } from "@vigil/domain";
import type { Transition } from "../status/evaluate";
import type { TransitionSink } from "../status/statuses";
import { isWriteConflict } from "../errors";
import { heartbeatPingBatchSize } from "../metrics/definitions";
import { OneBatchAtATime } from "./batches";
import { moveHeartbeat, type HeartbeatRow } from "./silence";

/** Pings kept per monitor: enough to read a job's recent runs, bounded whatever it sends. */
export const PINGS_KEPT = 100;

/** One request to a ping URL, as the route read it. */
export interface PingRequest {
  kind: PingKind;
  exitCode: number | null;
  body: string;
  method: string;
  address: string;
  userAgent: string;
}

export interface StoredPing extends PingRequest {
  id: string;
  monitorId: string;
  durationMs: number | null;
  receivedAt: Date;
}

/** Pings stored by one statement at the most: a burst's batches stay short, so each ping is answered soon. */
const PINGS_PER_BATCH = 250;

/** A ping waiting for its batch: the route's request, with its id and when it arrived. */
interface Arrival {
  token: string;
  id: string;
  receivedAt: Date;
  ping: PingRequest;
}

/** What the batch's statement answers of a ping stored: its monitor as it was, the ping's number and run duration. */
type StoredRow = HeartbeatRow & { ping_id: string; seq: bigint; duration_ms: number | null };

/**
 * The pings of heartbeat monitors. Pings are stored in batches (OneBatchAtATime: alone at a trickle, together in a
 * burst, a monitor's pings in the order they came), each batch one statement: it takes its monitors' row locks in id
 * order, numbers each ping, stores it, moves its monitor's last success and start, and prunes the ping that falls out
 * of the newest PINGS_KEPT. The monitor's updated_at stays as it was (it is the version API updates compare). Only a
 * ping that moves the monitor's status takes a transaction of its own, with alerting (see moveStatus).
 */
export class HeartbeatPings {
  private readonly batches = new OneBatchAtATime<Arrival, StoredRow | undefined>(
    (arrivals) => pRetry(() => this.store(arrivals), { retries: 2, minTimeout: 10, shouldRetry: ({ error }) => isWriteConflict(error) }),
    (arrival) => arrival.token,
    PINGS_PER_BATCH,
  );

  constructor(
    private readonly prisma: PrismaClient,
    /** Where a success that recovers a monitor, or a failure that fails it, goes: alerting, as for every kind. */
    private readonly transitions: TransitionSink,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Stores a ping of the monitor whose token it is; null when no heartbeat monitor has the token. */
  async record(token: string, ping: PingRequest): Promise<StoredPing | null> {
    const arrival = { token, id: uuidv7(), receivedAt: this.clock(), ping };
    const stored = await this.batches.add(arrival);
    if (!stored) return null;
    // A start says nothing of the job's health; a success recovers the monitor, a failure fails it at once.
    const to: MonitorStatus | null = ping.kind === "success" ? "active" : ping.kind === "fail" ? "error" : null;
    if (to !== null && stored.status !== to) {
      await this.moveStatus(stored, BigInt(stored.seq), to, arrival.receivedAt, to === "error" ? failurePingError(ping.exitCode) : null);
    }
    return { ...ping, id: arrival.id, monitorId: stored.id, durationMs: stored.duration_ms, receivedAt: arrival.receivedAt };
  }

  /**
   * One statement for a batch (at most one ping per token). A monitor another batch or a status move holds is waited
   * for; two such waiting on each other is a deadlock PostgreSQL ends by failing one, which is run again.
   */
  private async store(arrivals: Arrival[]): Promise<(StoredRow | undefined)[]> {
    const column = <V>(of: (arrival: Arrival) => V) => arrivals.map(of);
    const rows = await this.prisma.$queryRaw<StoredRow[]>`
      WITH i AS (
        SELECT * FROM unnest(
          ${column((a) => a.token)}::text[], ${column((a) => a.id)}::text[], ${column((a) => a.ping.kind)}::text[],
          ${column((a) => a.ping.exitCode)}::int[], ${column((a) => a.ping.body)}::text[], ${column((a) => a.ping.method)}::text[],
          ${column((a) => a.ping.address)}::text[], ${column((a) => a.ping.userAgent)}::text[], ${column((a) => a.receivedAt)}::timestamp(3)[]
        ) AS i(token, ping_id, ping_kind, exit_code, body, method, address, user_agent, received_at)
      ), m AS (
        SELECT monitors.id, workspace_id, name, status, last_start_at, ping_seq + 1 AS seq, i.*
        FROM monitors JOIN i ON monitors.ping_token = i.token
        WHERE monitors.kind = 'heartbeat' ORDER BY monitors.id FOR NO KEY UPDATE OF monitors
      ), d AS (
        SELECT m.*, CASE WHEN m.ping_kind <> 'start' AND m.last_start_at IS NOT NULL
          THEN greatest(0, round(extract(epoch FROM m.received_at - m.last_start_at) * 1000))::int END AS duration_ms
        FROM m
      ), moved AS (
        UPDATE monitors SET
          last_start_at = CASE WHEN d.ping_kind = 'start' THEN d.received_at END,
          last_success_at = CASE WHEN d.ping_kind = 'success' THEN d.received_at ELSE monitors.last_success_at END,
          ping_seq = d.seq
        FROM d WHERE monitors.id = d.id
      ), kept AS (
        INSERT INTO heartbeat_pings (id, monitor_id, kind, exit_code, duration_ms, body, method, address, user_agent, received_at, seq)
        SELECT ping_id, id, ping_kind, exit_code, duration_ms, body, method, address, user_agent, received_at, seq FROM d
      ), pruned AS (
        DELETE FROM heartbeat_pings AS p USING d WHERE p.monitor_id = d.id AND p.seq <= d.seq - ${PINGS_KEPT}
      )
      SELECT ping_id, id, workspace_id, name, status, seq, duration_ms FROM d`;
    heartbeatPingBatchSize.observe(arrivals.length);
    const byPing = new Map(rows.map((row) => [row.ping_id, row]));
    return arrivals.map((arrival) => byPing.get(arrival.id));
  }

  /**
   * Moves the monitor to the status its ping `seq` says, through alerting in the same transaction, unless a newer
   * success or failure was stored meanwhile: that one read the status under the same row lock and decided for itself.
   */
  private async moveStatus(row: HeartbeatRow, seq: bigint, to: MonitorStatus, at: Date, error: string | null): Promise<void> {
    const eventIds = await this.prisma.$transaction(async (tx) => {
      const [current] = await tx.$queryRaw<HeartbeatRow[]>`
        SELECT id, workspace_id, name, status FROM monitors WHERE id = ${row.id} FOR NO KEY UPDATE`;
      if (!current) return [];
      const [newer] = await tx.$queryRaw<unknown[]>`
        SELECT 1 FROM heartbeat_pings WHERE monitor_id = ${row.id} AND seq > ${seq} AND kind <> 'start' LIMIT 1`;
      if (newer) return [];
      const moved: Transition | null = await moveHeartbeat(tx, current, to, at, error === null ? undefined : { error, reason: "job_failed" });
      return moved ? this.transitions.record(tx, [moved]) : [];
    });
    // The events are stored; what fails to queue now, the deliveries' sweep queues.
    await this.transitions.enqueue(eventIds).catch(() => undefined);
  }

  /** A monitor's newest pings, newest first. */
  async list(monitorId: string, limit: number): Promise<StoredPing[]> {
    const rows = await this.prisma.heartbeatPing.findMany({
      where: { monitorId },
      orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
      take: limit,
    });
    return rows.map((row) => ({
      id: row.id,
      monitorId: row.monitorId,
      kind: row.kind as PingKind,
      exitCode: row.exitCode,
      durationMs: row.durationMs,
      body: row.body,
      method: row.method,
      address: row.address,
      userAgent: row.userAgent,
      receivedAt: row.receivedAt,
    }));
  }
}

/**
 * The text a ping body keeps: its first LIMITS.pingBodyBytes as UTF-8 (a character cut at the end shows as U+FFFD),
 * with U+0000, which PostgreSQL's text cannot hold, shown as U+FFFD too.
 */
export const pingBodyText = (body: Buffer): string => body.subarray(0, LIMITS.pingBodyBytes).toString("utf8").replaceAll("\0", "\uFFFD");
