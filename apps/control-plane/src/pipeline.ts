import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@vigil/db";
import { closeProviderConnections, type ProviderSettings } from "@vigil/notifications";
import { closeRedis, connectRedis, watchRedis, type RedisConnection } from "@vigil/queue";
import { Deliveries } from "./alerting/deliveries";
import { recordTransitions } from "./alerting/record";
import { Acknowledgements } from "./alerting/acknowledgements";
import { HeartbeatPings } from "./heartbeats/pings";
import { HeartbeatSilence, SILENCE_SWEEP_MS } from "./heartbeats/silence";
import { REMINDER_SWEEP_MS, Reminders } from "./alerting/reminders";
import { MAINTENANCE_SWEEP_MS, MaintenanceSweep } from "./maintenance/sweep";
import { MaintenanceEventHub, type MaintenanceEvents } from "./maintenance/events";
import { SLO_SWEEP_MS, SloBurnAlerts } from "./slo/burn-alerts";
import type { ChannelLoader } from "./alerting/delivery-store";
import type { ControlPlaneConfig } from "./config";
import type { Logger } from "@vigil/logging";
import { MonitorRepository } from "./monitors/repository";
import { ResultsConsumer } from "./results/consumer";
import { pruneResults } from "./results/retention";
import { AuditStore } from "./audit/store";
import { ReconcileLoop } from "./scheduling/reconcile-loop";
import { RedisResetWatch } from "./scheduling/reset-watch";
import { CheckScheduler } from "./scheduling/scheduler";
import { Statuses } from "./status/statuses";
import { Changes } from "./changes/changes";
import { relayChanges } from "./changes/relay";
import { VerifiedKeys } from "./auth/verified-keys";
import { relayRevocations, type Revocations } from "./auth/revocation-relay";
import { VerifiedSessions } from "./accounts/verified-sessions";

export type PipelineConfig = Pick<
  ControlPlaneConfig,
  "redis" | "redisPrefix" | "defaultRegions" | "resultRetentionDays" | "dailyAggregateRetentionDays" | "auditRetentionDays" | "reconcileIntervalMs" | "quorum" | "notificationConcurrency" | "ingestLanes" | "ingestGatherMs" | "retryDelaysMs"
> &
  // Left out, the deployment's default (SILENCE_SWEEP_MS).
  Partial<Pick<ControlPlaneConfig, "heartbeatSweepMs">> & {
    /** Left out, MAINTENANCE_SWEEP_MS; 0 never (tests that sweep on a clock of their own). */
    maintenanceSweepMs?: number;
    /** How often this control plane applies the SLO burn-rate rule; left out SLO_SWEEP_MS, 0 never (tests drive it on their clock). */
    sloSweepMs?: number;
  };

/** What delivering notifications needs from the rest of the control plane. */
export interface NotificationSetup {
  settings: ProviderSettings;
  loadChannels: ChannelLoader;
  /** The time reminders are due by and acknowledgement links expire by; tests run them on a clock of their own. */
  clock?: () => Date;
  /** Told when a maintenance window is scheduled, starts and completes (status page subscribers); none by default. */
  maintenanceEvents?: MaintenanceEvents;
}

export interface Pipeline {
  scheduler: CheckScheduler;
  statuses: Statuses;
  deliveries: Deliveries;
  /** Acknowledging incidents (API calls and links in alerts), and the reminders of those not acknowledged. */
  acknowledgements: Acknowledgements;
  reminders: Reminders;
  /** Alerts at the end of maintenance windows for failures still going on; tells of starts and ends. */
  maintenance: MaintenanceSweep;
  /** Where the sweep tells of windows' starts and ends; the API server adds status page subscribers to it. */
  maintenanceEvents: MaintenanceEventHub;
  /** slo.burn_rate alerts, on the same clock as reminders. */
  sloBurnAlerts: SloBurnAlerts;
  /** Heartbeat monitors' pings, on the same clock as reminders. */
  pings: HeartbeatPings;
  /** Fails heartbeat monitors that fell silent. */
  silence: HeartbeatSilence;
  /** Status page changes (by page id), shared with the deployment's other control planes. */
  pageChanges: Changes;
  /** Monitors changed or checked (by workspace id: stored results, API writes), shared likewise. */
  monitorChanges: Changes;
  /** The API keys this control plane trusts for a while, and the revocations that reach every control plane. */
  verifiedKeys: VerifiedKeys;
  verifiedSessions: VerifiedSessions;
  revocations: Revocations;
  /** Its Redis connection, for the API's state that control planes share. */
  redis: RedisConnection;
  /** Makes Redis match the database now. */
  reconcile(): Promise<void>;
  stop(): Promise<void>;
}

const PRUNE_INTERVAL_MS = 3_600_000;
const RECONCILE_RETRY_MS = 5_000;
const RESET_CHECK_MS = 1_000;
/** The marker of the Redis server the schedules were last rebuilt on (see RedisResetWatch). */
const resetMarkerKey = (prefix: string) => `${prefix}:schedules-marker`;

/**
 * The control plane's side of the check pipeline: schedules in Redis kept in
 * line with the database (at start and periodically), results read from the
 * agents' stream, the statuses and notifications they cause, and raw results
 * pruned to the retention.
 */
export async function startPipeline(prisma: PrismaClient, config: PipelineConfig, logger: Logger, notifications: NotificationSetup): Promise<Pipeline> {
  const redis = connectRedis(config.redis, "vigil-control-plane");
  watchRedis(redis, logger, "main connection");
  const scheduler = new CheckScheduler(redis, config.redisPrefix, config.defaultRegions);
  const deliveries: Deliveries = new Deliveries(redis, prisma, logger, {
    prefix: config.redisPrefix,
    concurrency: config.notificationConcurrency,
    retryDelaysMs: config.retryDelaysMs,
    ...notifications,
    ackLinkFor: (incidentId): Promise<string | null> => acknowledgements.newLink(incidentId),
  });
  const enqueueEvents = (ids: readonly string[]): Promise<void> => deliveries.enqueue(ids);
  const acknowledgements: Acknowledgements = new Acknowledgements(prisma, enqueueEvents, notifications.settings.publicUrl, notifications.clock);
  const reminders = new Reminders(prisma, enqueueEvents, notifications.clock);
  const sloBurnAlerts = new SloBurnAlerts(prisma, enqueueEvents, notifications.clock);
  const transitionSink = { record: recordTransitions, enqueue: (ids: readonly string[]) => deliveries.enqueue(ids) };
  const statuses = new Statuses(prisma, { defaultRegions: config.defaultRegions, quorum: config.quorum }, transitionSink);
  const pings = new HeartbeatPings(prisma, transitionSink, notifications.clock);
  const silence = new HeartbeatSilence(prisma, transitionSink, notifications.clock);
  // Blocking stream reads get a connection of their own, so they never delay scheduling commands.
  const monitorChanges = new Changes();
  const consumerConnection = redis.duplicate();
  watchRedis(consumerConnection, logger, "results consumer");
  const consumer = new ResultsConsumer(consumerConnection, prisma, logger, {
    prefix: config.redisPrefix,
    rules: statuses.rules,
    onEvents: (ids) => deliveries.enqueue(ids),
    onStored: (workspaceIds) => workspaceIds.forEach((id) => monitorChanges.publish(id)),
    lanes: config.ingestLanes,
    gatherMs: config.ingestGatherMs,
    unblockWith: redis,
    consumer: `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`,
  });
  const repo = new MonitorRepository(prisma);
  const pageChanges = new Changes();
  const maintenanceEvents = new MaintenanceEventHub();
  if (notifications.maintenanceEvents) maintenanceEvents.listen(notifications.maintenanceEvents);
  const maintenance = new MaintenanceSweep(prisma, statuses.rules, transitionSink, maintenanceEvents, pageChanges, logger, notifications.clock);
  const stopRelays = [
    relayChanges(pageChanges, { name: "status-page-changes", component: "status page relay" }, redis, config.redisPrefix, logger),
    relayChanges(monitorChanges, { name: "monitor-changes", component: "monitor change relay" }, redis, config.redisPrefix, logger),
  ];
  const verifiedKeys = new VerifiedKeys(prisma);
  const verifiedSessions = new VerifiedSessions(prisma);
  const revocations = relayRevocations({ keys: verifiedKeys, sessions: verifiedSessions }, redis, config.redisPrefix, logger);

  // A flushed or replaced Redis is noticed within a second and its schedules rebuilt at once.
  const resetWatch = new RedisResetWatch(redis, resetMarkerKey(config.redisPrefix), RESET_CHECK_MS, (reason) => {
    logger.warn({ reason }, "Redis lost the schedules; rebuilding them now");
    reconcileLoop.runNow();
  }, logger);
  const reconcile = async () => {
    const changesBefore = scheduler.changes;
    const active = await repo.listActive();
    await resetWatch.mark();
    const counts = await scheduler.reconcile(active, changesBefore);
    logger.info(counts, "schedules reconciled with the database");
    // A monitor changed meanwhile: its members are as its change wrote them, but its slot's scheduler, written by
    // the change while ours removed it as unused, may be gone: once more with a fresh list.
    if (scheduler.changes !== changesBefore) reconcileLoop.runNow();
  };
  const safely = (what: string, work: () => Promise<unknown>) => () =>
    work().catch((error: unknown) => logger.warn({ err: error }, `${what} failed; trying again at its next turn`));
  /** Runs `work` every `intervalMs`; 0 never (tests that drive a sweep on a clock of their own, which a timer would race). */
  const every = (intervalMs: number, work: () => Promise<unknown>) => (intervalMs === 0 ? undefined : setInterval(() => void work(), intervalMs));

  // The API must come up even while Redis is unreachable: reconciliation runs
  // in the background, soon again after a failure, then at its interval.
  const reconcileLoop = new ReconcileLoop(reconcile, { intervalMs: config.reconcileIntervalMs, retryMs: RECONCILE_RETRY_MS }, logger);
  reconcileLoop.start();
  resetWatch.start();
  consumer.start();
  deliveries.start();
  const pruneData = safely("pruning results", () => pruneResults(prisma, { resultDays: config.resultRetentionDays, dailyAggregateDays: config.dailyAggregateRetentionDays }));
  const pruneAudit = safely("pruning the audit log", () => new AuditStore(prisma).prune(config.auditRetentionDays));
  const pruneAckLinks = safely("pruning acknowledgement links", () => acknowledgements.pruneLinks());
  const prune = () => Promise.all([pruneData(), pruneAudit(), pruneAckLinks()]);
  const timers = [
    every(PRUNE_INTERVAL_MS, prune),
    every(REMINDER_SWEEP_MS, safely("sending reminders", () => reminders.sweep())),
    every(config.maintenanceSweepMs ?? MAINTENANCE_SWEEP_MS, safely("sweeping maintenance windows", () => maintenance.sweep())),
    every(config.sloSweepMs ?? SLO_SWEEP_MS, safely("applying the SLO burn-rate rule", () => sloBurnAlerts.sweep())),
    every(config.heartbeatSweepMs ?? SILENCE_SWEEP_MS, safely("sweeping silent heartbeat monitors", () => silence.sweep())),
  ];
  void prune();

  return {
    scheduler,
    statuses,
    deliveries,
    acknowledgements,
    pings,
    silence,
    reminders,
    maintenance,
    maintenanceEvents,
    sloBurnAlerts,
    pageChanges,
    monitorChanges,
    verifiedKeys,
    verifiedSessions,
    revocations,
    redis,
    reconcile,
    async stop() {
      resetWatch.stop();
      reconcileLoop.stop();
      timers.forEach((timer) => clearInterval(timer));
      await consumer.stop();
      await deliveries.close();
      await closeProviderConnections();
      await scheduler.close();
      stopRelays.forEach((stop) => stop());
      revocations.close();
      await closeRedis(redis);
    },
  };
}
