import { Prisma, type PrismaClient } from "@vigil/db";
import { heartbeatDeadline, silenceError, type HeartbeatMonitorConfig, type MonitorStatus } from "@vigil/domain";
import { heartbeatSilences } from "../metrics/definitions";
import type { Transition } from "../status/evaluate";
import type { TransitionSink } from "../status/statuses";

type Tx = Prisma.TransactionClient;

/** How often control planes look for silent heartbeat monitors; a failure is told late by at most this. */
export const SILENCE_SWEEP_MS = 15_000;

/** What a heartbeat's status needs of its row. */
export interface HeartbeatRow {
  id: string;
  workspace_id: string;
  name: string;
  status: MonitorStatus;
}

/**
 * A heartbeat monitor's status moving `to`, as alerting takes the transitions of every kind: a heartbeat has no
 * regions, so its incident names none, and the quorum and confirmations, which count regions, play no part.
 */
export async function moveHeartbeat(tx: Tx, row: HeartbeatRow, to: MonitorStatus, at: Date, cause?: Transition["cause"]): Promise<Transition | null> {
  if (row.status === to) return null;
  await tx.$executeRaw`UPDATE monitors SET status = ${to} WHERE id = ${row.id}`;
  const monitor = {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    kind: "heartbeat" as const,
    target: "",
    regions: [],
    periodMs: 0,
    quorum: "all" as const,
    confirmations: { confirmations: 1, recoveryConfirmations: 1 },
    status: to,
    states: new Map(),
  };
  return { monitor, from: row.status, to, at, regions: [], newest: undefined, ...(cause ? { cause } : {}) };
}

/**
 * Fails the active heartbeat monitors that no success reached in time (heartbeatDeadline). Every control plane
 * sweeps; each takes the monitors' row locks, skipping those another holds, and moves only those not failed yet,
 * so each silence fails its monitor once, and alerting, in the same transaction, records it once. The clock is
 * injected so that tests run days of silence at once.
 */
export class HeartbeatSilence {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly transitions: TransitionSink,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Fails the monitors silent at `now`; returns how many this control plane failed. */
  async sweep(now = this.clock()): Promise<number> {
    const { failed, eventIds } = await this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<(HeartbeatRow & Omit<HeartbeatMonitorConfig, "name"> & { since: Date; lastSuccessAt: Date | null })[]>`
        SELECT id, workspace_id, name, status, period_seconds AS "periodSeconds", coalesce(cron, '') AS cron,
               coalesce(timezone, 'UTC') AS timezone, coalesce(grace_seconds, 0) AS "graceSeconds",
               coalesce(last_success_at, updated_at) AS since, last_success_at AS "lastSuccessAt"
        FROM monitors WHERE kind = 'heartbeat' AND active AND status <> 'error'
        ORDER BY id FOR NO KEY UPDATE SKIP LOCKED`;
      const transitions: Transition[] = [];
      for (const row of rows) {
        // Until its first success, a monitor is watched from when it was last configured.
        const deadline = heartbeatDeadline({ ...row, description: "", active: true, public: false }, row.since);
        if (deadline > now) continue;
        const cause = { error: silenceError(row.lastSuccessAt, row.since, deadline), reason: "silence" as const };
        const transition = await moveHeartbeat(tx, row, "error", deadline, cause);
        if (transition) transitions.push(transition);
      }
      return { failed: transitions.length, eventIds: await this.transitions.record(tx, transitions) };
    });
    heartbeatSilences.inc(failed);
    // The events are stored; what fails to queue now, the deliveries' sweep queues.
    await this.transitions.enqueue(eventIds).catch(() => undefined);
    return failed;
  }
}
