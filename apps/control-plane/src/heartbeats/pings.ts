import type { PrismaClient } from "@vigil/db";
import { LIMITS, type MonitorStatus, type PingKind } from "@vigil/domain";
import type { Transition } from "../status/evaluate";
import type { TransitionSink } from "../status/statuses";
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

/**
 * The pings of heartbeat monitors. A ping takes its monitor's row lock, so that the pings of one job are ordered
 * and a success after a start measures that start; the monitor's updated_at stays as it was (it is the version
 * API updates compare), only its last success and start move.
 */
export class HeartbeatPings {
  constructor(
    private readonly prisma: PrismaClient,
    /** Where a success that recovers a monitor, or a failure that fails it, goes: alerting, as for every kind. */
    private readonly transitions: TransitionSink,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Stores a ping of the monitor whose token it is; null when no heartbeat monitor has the token. */
  async record(token: string, ping: PingRequest): Promise<StoredPing | null> {
    const now = this.clock();
    const recorded = await this.prisma.$transaction(async (tx) => {
      const [monitor] = await tx.$queryRaw<(HeartbeatRow & { last_start_at: Date | null; ping_seq: bigint })[]>`
        SELECT id, workspace_id, name, status, last_start_at, ping_seq FROM monitors WHERE ping_token = ${token} AND kind = 'heartbeat' FOR NO KEY UPDATE`;
      if (!monitor) return null;
      const started = monitor.last_start_at;
      const durationMs = ping.kind !== "start" && started ? Math.max(0, now.getTime() - started.getTime()) : null;
      // Numbered under the row lock, so one monitor's pings are numbered in the order they are stored.
      const seq = BigInt(monitor.ping_seq) + 1n;
      await tx.$executeRaw`
        UPDATE monitors SET
          last_start_at = ${ping.kind === "start" ? now : null},
          last_success_at = CASE WHEN ${ping.kind === "success"} THEN ${now}::timestamp(3) ELSE last_success_at END,
          ping_seq = ${seq}
        WHERE id = ${monitor.id}`;
      const stored = await tx.heartbeatPing.create({
        data: { monitorId: monitor.id, ...ping, durationMs, receivedAt: now, seq },
      });
      // A bound on (monitor_id, seq) finds the one ping that falls out; reading the kept ones to find it cost ~40 times more.
      await tx.$executeRaw`DELETE FROM heartbeat_pings WHERE monitor_id = ${monitor.id} AND seq <= ${seq - BigInt(PINGS_KEPT)}`;
      // A start says nothing of the job's health; a success recovers the monitor, a failure fails it at once.
      const to: MonitorStatus | null = ping.kind === "success" ? "active" : ping.kind === "fail" ? "error" : null;
      const moved: Transition | null = to && (await moveHeartbeat(tx, monitor, to, now));
      const eventIds = moved ? await this.transitions.record(tx, [moved]) : [];
      return { ping: { ...ping, id: stored.id, monitorId: monitor.id, durationMs, receivedAt: now }, eventIds };
    });
    if (!recorded) return null;
    // The events are stored; what fails to queue now, the deliveries' sweep queues.
    await this.transitions.enqueue(recorded.eventIds).catch(() => undefined);
    return recorded.ping;
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
