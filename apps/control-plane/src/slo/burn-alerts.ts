import { v5 as uuidv5, v7 as uuidv7 } from "uuid";
import type { PrismaClient } from "@vigil/db";
import { SLO_BURN_RATE_ENDED_EVENT, SLO_BURN_RATE_EVENT, budgetRemainingPercent, burnRate, burnRateAlerting, type MonitorStatus, type StoredMonitorKind } from "@vigil/domain";
import { aboutMonitorOnly } from "@vigil/notifications";
import { createDeliveries, insertEvents, monitorEvent, type EventRow } from "../alerting/record";
import { burnWindowCounts, windowCounts, type WindowCounts } from "./figures";

/** How often control planes look at the burn rates; an episode starts or ends at most this late. */
export const SLO_SWEEP_MS = 60_000;

const HOUR_MS = 3_600_000;

/** The namespace of burn-rate event ids (a random UUID, fixed here): an episode's start and end have one id on every control plane. */
const SLO_EVENT_NAMESPACE = "8f7a3c1e-2b4d-4e6f-9a8b-1c2d3e4f5a6b";

type Objective = keyof WindowCounts;

interface Watched {
  id: string;
  workspaceId: string;
  name: string;
  kind: string;
  target: string;
  status: string;
  availabilityObjective: number;
  latencyObjectiveMs: number;
  latencyObjectivePercent: number;
}

/** An objective's target in percent, 0 when the monitor has none. */
const targetOf = (m: Watched, objective: Objective) => (objective === "availability" ? m.availabilityObjective : m.latencyObjectiveMs > 0 ? m.latencyObjectivePercent : 0);

/**
 * slo.burn_rate alerts (docs/alerting.md "SLOs"): every control plane sweeps the monitors with objectives (and those
 * with an episode still open), and applies the multi-window rule to each objective's burn rates from the raw results.
 * An episode starts when the rule holds and none is open, and ends when it no longer holds (or the objective is gone);
 * the start sends slo.burn_rate and the end slo.burn_rate_ended to the monitor's channels, through the delivery outbox.
 * The partial unique index on open episodes lets only one control plane start an episode, and the conditional update
 * only one end it, so each is sent exactly once. The clock is injected so that tests run hours of burn at once.
 */
export class SloBurnAlerts {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly enqueue: (eventIds: readonly string[]) => Promise<void>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Starts and ends the episodes due now; returns how many events this control plane recorded. */
  async sweep(now = this.clock()): Promise<number> {
    const monitors = await this.prisma.monitor.findMany({
      where: {
        kind: { not: "heartbeat" },
        OR: [{ availabilityObjective: { gt: 0 } }, { latencyObjectiveMs: { gt: 0 } }, { sloBurnEpisodes: { some: { endedAt: null } } }],
      },
      select: { id: true, workspaceId: true, name: true, kind: true, target: true, status: true, availabilityObjective: true, latencyObjectiveMs: true, latencyObjectivePercent: true },
    });
    let recorded = 0;
    for (const monitor of monitors) {
      const windows = await burnWindowCounts(this.prisma, monitor.id, monitor.latencyObjectiveMs, now);
      const burning = (objective: Objective) => {
        const target = targetOf(monitor, objective);
        return target > 0 && burnRateAlerting(target, (windowMs) => windows.get(windowMs)![objective]);
      };
      const eventIds = await this.record(monitor, { availability: burning("availability"), latency: burning("latency") }, windows, now);
      await this.enqueue(eventIds);
      recorded += eventIds.length;
    }
    return recorded;
  }

  private async record(monitor: Watched, burning: Record<Objective, boolean>, windows: Map<number, WindowCounts>, now: Date): Promise<string[]> {
    const events = await this.prisma.$transaction(async (tx) => {
      const open = new Map(
        (await tx.sloBurnEpisode.findMany({ where: { monitorId: monitor.id, endedAt: null }, select: { id: true, objective: true } })).map((e) => [e.objective as Objective, e.id]),
      );
      const changes: { objective: Objective; episodeId: string; type: typeof SLO_BURN_RATE_EVENT | typeof SLO_BURN_RATE_ENDED_EVENT }[] = [];
      for (const objective of ["availability", "latency"] as const) {
        const episode = open.get(objective);
        if (burning[objective] && episode === undefined) {
          const id = uuidv7();
          const started = await tx.$executeRaw`
            INSERT INTO slo_burn_episodes (id, monitor_id, objective, started_at) VALUES (${id}, ${monitor.id}, ${objective}, ${now})
            ON CONFLICT (monitor_id, objective) WHERE ended_at IS NULL DO NOTHING`;
          if (started === 1) changes.push({ objective, episodeId: id, type: SLO_BURN_RATE_EVENT });
        } else if (!burning[objective] && episode !== undefined) {
          const ended = await tx.$executeRaw`UPDATE slo_burn_episodes SET ended_at = ${now} WHERE id = ${episode} AND ended_at IS NULL`;
          if (ended === 1) changes.push({ objective, episodeId: episode, type: SLO_BURN_RATE_ENDED_EVENT });
        }
      }
      if (changes.length === 0) return [];
      const window = await windowCounts(tx, monitor.id, monitor.latencyObjectiveMs, now);
      const rows = changes.map(({ objective, episodeId, type }): EventRow => {
        const target = targetOf(monitor, objective);
        const rate = (windowMs: number) => (target > 0 ? burnRate(target, windows.get(windowMs)![objective]) : null);
        return monitorEvent(
          monitor,
          type,
          now,
          {
            ...aboutMonitorOnly({ id: monitor.id, name: monitor.name, kind: monitor.kind as StoredMonitorKind, target: monitor.target, status: monitor.status as MonitorStatus }),
            incident: null,
            slo: {
              episodeId,
              objective,
              target,
              thresholdMs: objective === "latency" ? monitor.latencyObjectiveMs : 0,
              burnRate1h: rate(HOUR_MS),
              burnRate6h: rate(6 * HOUR_MS),
              budgetRemaining: target > 0 ? budgetRemainingPercent(target, window[objective]) : null,
            },
          },
          uuidv5(`${episodeId}/${type}`, SLO_EVENT_NAMESPACE),
        );
      });
      await insertEvents(tx, rows);
      return createDeliveries(tx, rows);
    });
    return events;
  }
}
