import { randomBytes } from "node:crypto";
import pTimeout from "p-timeout";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, type FieldMask } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  certificateDaysLeft,
  ValidationError,
  fieldsToUpdate,
  heartbeatFieldsToUpdate,
  heartbeatInputFromMessage,
  mergeHeartbeatChanges,
  parseHeartbeatConfig,
  monitorTargets,
  monitorInputFromMessage,
  monitorToMessage,
  MONITOR_MESSAGE_SCHEMAS,
  parseExternalId,
  parseMonitorConfig,
  monitorStatusCodec,
  parsePage,
  type Page,
  parseSummaryRequest,
  parseResultsRequest,
  parseTimeseriesRequest,
  regionStatusOf,
  regionCodec,
  rejectRedactedCredentials,
  restoreCredentials,
  timeRangeCodec,
  type MonitorKind,
  type MonitorMessageByKind,
  type AddressPolicy,
  type MonitorRecord,
  type StoredMonitor,
  parseId,
  parseReportMonth,
} from "@vigil/domain";
import type { PrismaClient } from "@vigil/db";
import {
  HeartbeatMonitorSchema,
  MonitorService,
  type HeartbeatMonitor,
  type ListMonitorOverviewsResponseSchema,
  type UpdateHeartbeatMonitorRequest,
  type WatchMonitorOverviewsResponseSchema,
} from "@vigil/proto";
import { regionCertificates } from "../alerting/certificates";
import { actorOf, readsOnly } from "../auth/context";
import type { Changes } from "../changes/changes";
import { notFound } from "../errors";
import type { Logger } from "@vigil/logging";
import { listCheckResults } from "../results/check-results";
import { OVERVIEW_ANSWER_MS, SharedAnswers, changeTokenOf, monitorHistories, overviewState, stateOfToken } from "../results/overview";
import { monitorSlo } from "../slo/figures";
import { sloResponse } from "../slo/messages";
import { monitorReport } from "../slo/report";
import { monitorSummary } from "../results/summary";
import { monitorTimeseries } from "../results/timeseries";
import { listRegions } from "../regions/regions";
import type { CheckScheduler } from "../scheduling/scheduler";
import type { Statuses } from "../status/statuses";
import { MonitorMessages, heartbeatMessage, kindAndMessage, type KindAndMessage } from "./messages";
import type { MonitorRepository } from "./repository";
import type { HeartbeatPings } from "../heartbeats/pings";
import { heartbeatSummary } from "../heartbeats/summary";
import type { OverviewWakes } from "./overview-wakes";

const METHOD_KIND = { http: "HTTP", tcp: "TCP", dns: "DNS", grpc: "GRPC", heartbeat: "Heartbeat" } as const;
/** Attempts at a partial update that keeps losing to concurrent writers before giving up. */
const UPDATE_ATTEMPTS = 5;

/** Changed monitors one WatchMonitorOverviews message holds; more make it a reload. */
const WATCH_LIMIT = 100;
/** A watch with nothing to tell still sends this often, so that proxies keep its stream open (they close idle ones after about a minute). */
const WATCH_HEARTBEAT_MS = 15_000;

type OverviewChanges = { changeToken: string } & (
  | { kind: "unchanged" }
  | { kind: "changes"; total: number; monitors: KindAndMessage[] }
  | { kind: "reload" }
);

/** How long TriggerMonitor and ListRegions wait for Redis before answering unavailable. */
const QUEUE_TIMEOUT_MS = 5_000;

const withinQueueTimeout = <T>(work: Promise<T>): Promise<T> =>
  pTimeout(work, {
    milliseconds: QUEUE_TIMEOUT_MS,
    // Made only on a timeout, not for every call.
    fallback: () => {
      throw new ConnectError("the check queue is unreachable; try again", Code.Unavailable);
    },
  });

export function monitorService(
  repo: MonitorRepository,
  scheduler: CheckScheduler,
  statuses: Statuses,
  prisma: PrismaClient,
  logger: Logger,
  /** The deployment's SSRF guard: a literal address it refuses is rejected at save time, an early hint of what the agents will refuse. */
  addressPolicy: AddressPolicy,
  /** Monitors one workspace may have (MONITORS_PER_WORKSPACE). */
  monitorsPerWorkspace: number,
  /** Wakes WatchMonitorOverviews' streams when a workspace's monitors changed or were checked. */
  wakes: OverviewWakes,
  /** Told of every write to a workspace's monitors (the watches of its overview, here and on other control planes). */
  monitorChanges: Changes,
  /** The deployment's PUBLIC_URL: heartbeats' ping URLs are under it. */
  publicUrl: string,
  pings: HeartbeatPings,
): ServiceImpl<typeof MonitorService> {
  const workspaceOf = (ctx: HandlerContext) => actorOf(ctx).workspace.id;
  const messages = new MonitorMessages(repo, publicUrl);

  /**
   * Schedules follow a change at once, without making the caller wait on
   * Redis: the database already holds the change, and if Redis is out of reach
   * the scheduler's periodic reconciliation applies it later.
   */
  const reschedule = (what: string, work: () => Promise<void>) =>
    void work().catch((error: unknown) => logger.warn({ err: error }, `${what}: schedules will be reconciled later`));

  async function findMonitor(ctx: HandlerContext, id: string): Promise<StoredMonitor> {
    const record = await repo.find(workspaceOf(ctx), parseId(id));
    if (!record) throw notFound(`monitor ${id}`);
    return record;
  }

  /** An update's monitor, refused (naming the method that updates it) when it is of another kind. */
  function ofKind<K extends StoredMonitor["kind"]>(record: StoredMonitor, kind: K): StoredMonitor & { kind: K } {
    if (record.kind !== kind) {
      const other = METHOD_KIND[record.kind];
      throw ValidationError.of("id", `names a ${other} monitor; update it with Update${other}Monitor`);
    }
    return record as StoredMonitor & { kind: K };
  }

  async function createHeartbeat(ctx: HandlerContext, message: HeartbeatMonitor | undefined) {
    if (!message) throw ValidationError.of("monitor", "is required");
    const config = parseHeartbeatConfig(heartbeatInputFromMessage(message));
    const externalId = parseExternalId(message.externalId, "monitor.externalId");
    // 24 random bytes: the token is the only secret of a ping, which anyone who holds it may send.
    const token = randomBytes(24).toString("base64url");
    const record = await repo.createHeartbeat(workspaceOf(ctx), config, externalId, token, monitorsPerWorkspace);
    monitorChanges.publish(workspaceOf(ctx));
    return { monitor: heartbeatMessage(record, false, publicUrl) };
  }

  async function updateHeartbeat(ctx: HandlerContext, request: UpdateHeartbeatMonitorRequest) {
    const message = request.monitor ?? create(HeartbeatMonitorSchema);
    const fields = heartbeatFieldsToUpdate(message, request.updateMask);
    const input = heartbeatInputFromMessage(message);
    const changes = Object.fromEntries(fields.config.map((field) => [field, input[field]]));
    const externalId = fields.externalId === undefined ? undefined : parseExternalId(fields.externalId, "monitor.externalId");
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = ofKind(await findMonitor(ctx, request.id), "heartbeat");
      const config = parseHeartbeatConfig(mergeHeartbeatChanges(current.config, changes));
      if (fields.config.length === 0 && externalId === undefined) return { monitor: heartbeatMessage(current, false, publicUrl) };
      const saved = await repo.replaceHeartbeat(workspaceOf(ctx), current, config, externalId);
      if (saved) {
        monitorChanges.publish(workspaceOf(ctx));
        return { monitor: heartbeatMessage(saved, false, publicUrl) };
      }
    }
    throw new ConnectError("the monitor kept changing while this update was applied; try again", Code.Aborted);
  }

  /** A read over a range of a monitor's results: the request checked first, then the monitor found. */
  async function rangeOf<T>(
    ctx: HandlerContext,
    req: { id: string; timeRange: number; regions: number[] },
    parse: (input: { timeRange: unknown; regions: unknown[] }) => T,
  ): Promise<T & { record: StoredMonitor }> {
    const parsed = parse({ timeRange: timeRangeCodec.decode(req.timeRange), regions: req.regions.map(regionCodec.decode) });
    return { ...parsed, record: await findMonitor(ctx, req.id) };
  }

  async function createMonitor<K extends MonitorKind>(ctx: HandlerContext, kind: K, message: MonitorMessageByKind[K] | undefined) {
    if (!message) throw ValidationError.of("monitor", "is required");
    const config = parseMonitorConfig(kind, monitorInputFromMessage(kind, message));
    rejectRedactedCredentials(config, "monitor");
    addressPolicy.assertTargetsAllowed(monitorTargets(kind, config));
    const externalId = parseExternalId(message.externalId, "monitor.externalId");
    const record = await repo.create(workspaceOf(ctx), kind, config, externalId, monitorsPerWorkspace);
    reschedule(`scheduling monitor ${record.id}`, () => scheduler.schedule(record));
    monitorChanges.publish(workspaceOf(ctx));
    return { monitor: monitorToMessage(record) };
  }

  async function updateMonitor<K extends MonitorKind>(
    ctx: HandlerContext,
    kind: K,
    request: { id: string; monitor?: MonitorMessageByKind[K]; updateMask?: FieldMask },
  ) {
    const message = request.monitor ?? (create(MONITOR_MESSAGE_SCHEMAS[kind]) as unknown as MonitorMessageByKind[K]);
    const fields = fieldsToUpdate(kind, message, request.updateMask);
    const input = monitorInputFromMessage(kind, message);
    const changes = Object.fromEntries(fields.config.map((field) => [field, input[field]]));
    const externalId = fields.externalId === undefined ? undefined : parseExternalId(fields.externalId, "monitor.externalId");
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = ofKind(await findMonitor(ctx, request.id), kind as MonitorKind) as MonitorRecord;
      // What a read key was answered, sent back, keeps the stored credentials.
      const config = parseMonitorConfig(kind, restoreCredentials({ ...current.config, ...changes }, current.config, current.id));
      rejectRedactedCredentials(config, "monitor");
      addressPolicy.assertTargetsAllowed(monitorTargets(kind, config));
      if (fields.config.length === 0 && externalId === undefined) return { monitor: monitorToMessage(current as MonitorRecord<K>) };
      const saved = await repo.replaceConfig(workspaceOf(ctx), current as MonitorRecord<K>, config, externalId);
      if (saved) monitorChanges.publish(workspaceOf(ctx));
      if (saved && fields.config.length === 0) return { monitor: monitorToMessage(saved) };
      if (saved) {
        reschedule(`rescheduling monitor ${saved.id}`, () => scheduler.schedule(saved));
        // Its regions may have changed, and with them the regions its status comes from.
        await statuses.reevaluate([saved.id]);
        const refreshed = (await repo.find(workspaceOf(ctx), saved.id)) as MonitorRecord<K> | null;
        return { monitor: monitorToMessage(refreshed ?? saved) };
      }
    }
    throw new ConnectError("the monitor kept changing while this update was applied; try again", Code.Aborted);
  }

  const overviewAnswers = new SharedAnswers<MessageInitShape<typeof ListMonitorOverviewsResponseSchema>>(OVERVIEW_ANSWER_MS);
  const watchAnswers = new SharedAnswers<{ changed: boolean; changeToken: string; message: MessageInitShape<typeof WatchMonitorOverviewsResponseSchema> }>(OVERVIEW_ANSWER_MS);

  /** What changed in a workspace's overviews since a change token: nothing, these monitors (up to `limit`), or too much to tell. */
  async function overviewChanges(workspace: string, readKey: boolean, changedSince: string, limit: number): Promise<OverviewChanges> {
    const state = await overviewState(prisma, workspace);
    const changeToken = changeTokenOf(state);
    if (changedSince === changeToken) return { changeToken, kind: "unchanged" };
    const since = stateOfToken(changedSince);
    // The same monitors in the same minute: only those changed or checked since, unless more than `limit`.
    if (since && since.count === state.count && since.idSum === state.idSum && since.minute === state.minute) {
      const versions = await repo.changedVersions(workspace, new Date(since.changed), new Date(since.checked), limit + 1);
      if (versions.length <= limit) return { changeToken, kind: "changes", total: state.count, monitors: await messages.messagesOf(workspace, versions, readKey) };
    }
    return { changeToken, kind: "reload" };
  }

  /** ListMonitorOverviews' answer; see docs/api.md, "Overviews". */
  async function overviews(workspace: string, page: Page, readKey: boolean, changedSince: string) {
    const changes = await overviewChanges(workspace, readKey, changedSince, page.limit);
    const { changeToken } = changes;
    if (changes.kind === "unchanged") return { changeToken, unchanged: true };
    if (changes.kind === "changes") return { changeToken, changesOnly: true, totalSize: changes.total, monitors: await overviewsOf(changes.monitors) };
    const { monitors, total } = await messages.page(workspace, page.limit, page.offset, readKey);
    return { changeToken, totalSize: total, monitors: await overviewsOf(monitors) };
  }

  /** A WatchMonitorOverviews message; `changed` false when it would only say that nothing changed. */
  async function watchMessage(workspace: string, readKey: boolean, changedSince: string) {
    const changes = await overviewChanges(workspace, readKey, changedSince, WATCH_LIMIT);
    const monitors = changes.kind === "changes" ? await overviewsOf(changes.monitors) : [];
    const { changeToken } = changes;
    return { changed: changes.kind !== "unchanged", changeToken, message: { changeToken, reload: changes.kind === "reload", monitors } };
  }

  /** The overviews of monitors (ListMonitorOverviews): a few statements for all of them. */
  async function overviewsOf(monitors: KindAndMessage[]) {
    const ids = monitors.map((m) => m.message.id);
    const [current, histories] = await Promise.all([statuses.current(ids), monitorHistories(prisma, ids)]);
    return monitors.map(({ kind, message }) => {
      const now = current.get(message.id);
      const history = histories.get(message.id)!;
      return {
        id: message.id,
        name: message.name ?? "",
        kind,
        target: (kind === "http" ? message.url : kind === "heartbeat" ? "" : message.uri) ?? "",
        active: message.active ?? false,
        // A heartbeat has a period or a schedule of its own, none of the checked kinds' periodicities.
        periodicity: kind === "heartbeat" ? 0 : message.periodicity,
        status: message.status,
        regions: (now?.regions ?? []).map((r) => ({ region: regionCodec.encode(r.region), status: monitorStatusCodec.encode(r.status) })),
        lastLatencyMs: now?.newest?.latencyMs,
        lastCheckedAt: now?.newest ? timestampFromDate(now.newest.lastResultAt) : undefined,
        hours: history.hours.map((h) => ({ start: timestampFromDate(h.start), count: h.count, failed: h.failed, p50: h.p50 })),
        uptime1d: history.uptime1d ?? undefined,
        uptime7d: history.uptime7d ?? undefined,
      };
    });
  }

  return {
    createHTTPMonitor: (req, ctx) => createMonitor(ctx, "http", req.monitor),
    createTCPMonitor: (req, ctx) => createMonitor(ctx, "tcp", req.monitor),
    createDNSMonitor: (req, ctx) => createMonitor(ctx, "dns", req.monitor),
    updateHTTPMonitor: (req, ctx) => updateMonitor(ctx, "http", req),
    updateTCPMonitor: (req, ctx) => updateMonitor(ctx, "tcp", req),
    updateDNSMonitor: (req, ctx) => updateMonitor(ctx, "dns", req),
    createGRPCMonitor: (req, ctx) => createMonitor(ctx, "grpc", req.monitor),
    updateGRPCMonitor: (req, ctx) => updateMonitor(ctx, "grpc", req),
    createHeartbeatMonitor: (req, ctx) => createHeartbeat(ctx, req.monitor),
    updateHeartbeatMonitor: (req, ctx) => updateHeartbeat(ctx, req),

    async listMonitors(req, ctx) {
      const page = parsePage({ limit: req.limit, offset: req.offset });
      const { monitors, total } = await messages.page(workspaceOf(ctx), page.limit, page.offset, readsOnly(ctx));
      const listed = <K extends KindAndMessage["kind"]>(kind: K) =>
        monitors.flatMap((m) => (m.kind === kind ? [m.message as (KindAndMessage & { kind: K })["message"]] : []));
      return {
        httpMonitors: listed("http"),
        tcpMonitors: listed("tcp"),
        dnsMonitors: listed("dns"),
        grpcMonitors: listed("grpc"),
        heartbeatMonitors: listed("heartbeat"),
        totalSize: total,
      };
    },

    listMonitorOverviews(req, ctx) {
      const page = parsePage({ limit: req.limit, offset: req.offset });
      const workspace = workspaceOf(ctx);
      const readKey = readsOnly(ctx);
      return overviewAnswers.answer([workspace, page.limit, page.offset, readKey, req.changedSince].join("|"), () =>
        overviews(workspace, page, readKey, req.changedSince),
      );
    },

    async *watchMonitorOverviews(req, ctx) {
      const workspace = workspaceOf(ctx);
      const readKey = readsOnly(ctx);
      let token = req.changedSince;
      let sentAt = -Infinity;
      // nginx buffers what it proxies unless told not to; a message must reach the console when it is sent.
      ctx.responseHeader.set("x-accel-buffering", "no");
      for await (const wake of wakes.watch(workspace, ctx.signal)) {
        // The watches of a workspace woken together compute once between them.
        const { changed, changeToken, message } = await watchAnswers.answer([workspace, readKey, token, wake].join("|"), () => watchMessage(workspace, readKey, token));
        if (!changed && Date.now() - sentAt < WATCH_HEARTBEAT_MS) continue;
        token = changeToken;
        sentAt = Date.now();
        yield message;
      }
    },

    async getMonitor(req, ctx) {
      const record = await findMonitor(ctx, req.id);
      const { kind, message } = kindAndMessage(record, readsOnly(ctx), publicUrl);
      return { monitor: { config: { case: kind, value: message } as never } };
    },

    async deleteMonitor(req, ctx) {
      if (!(await repo.delete(workspaceOf(ctx), parseId(req.id)))) throw notFound(`monitor ${req.id}`);
      monitorChanges.publish(workspaceOf(ctx));
      reschedule(`unscheduling monitor ${req.id}`, () => scheduler.unschedule(req.id));
      return { success: true };
    },

    async triggerMonitor(req, ctx) {
      const record = await findMonitor(ctx, req.id);
      if (record.kind === "heartbeat") {
        throw new ConnectError(`monitor ${req.id} is a heartbeat monitor: its job pings it, no agent checks it`, Code.FailedPrecondition);
      }
      await withinQueueTimeout(scheduler.trigger(record));
      return { success: true };
    },

    async getMonitorStatus(req, ctx) {
      const record = await findMonitor(ctx, req.id);
      const [regions, certificates] = await Promise.all([statuses.regions(record.id), regionCertificates(prisma, record.id)]);
      const now = new Date();
      return {
        id: record.id,
        regions: regions.map((s) => {
          const certificate = certificates.get(s.region);
          return {
            region: regionCodec.encode(s.region),
            status: monitorStatusCodec.encode(s.status),
            certificate: certificate && {
              notAfter: timestampFromDate(new Date(certificate.notAfter)),
              issuer: certificate.issuer,
              subjectAltNames: certificate.subjectAltNames,
              chainNotAfter: timestampFromDate(new Date(certificate.chainNotAfter)),
              daysLeft: BigInt(certificateDaysLeft(certificate, now)),
              checkedAt: timestampFromDate(certificate.checkedAt),
            },
          };
        }),
      };
    },

    async getMonitorSummary(req, ctx) {
      const { record, timeRange, regions } = await rangeOf(ctx, req, parseSummaryRequest);
      // A heartbeat has no checks to aggregate: its summary is its kept pings' (docs/api.md).
      const summary = record.kind === "heartbeat" ? await heartbeatSummary(prisma, record.id, timeRange) : await monitorSummary(prisma, record.id, timeRange, regions);
      return {
        id: record.id,
        timeRange: req.timeRange,
        lastPingAt: summary.lastPingAt ? timestampFromDate(summary.lastPingAt) : undefined,
        totalSuccessful: BigInt(summary.totalSuccessful),
        totalDegraded: BigInt(summary.totalDegraded),
        totalFailed: BigInt(summary.totalFailed),
        p50: BigInt(summary.percentiles[50]),
        p75: BigInt(summary.percentiles[75]),
        p90: BigInt(summary.percentiles[90]),
        p95: BigInt(summary.percentiles[95]),
        p99: BigInt(summary.percentiles[99]),
      };
    },

    async getMonitorSlo(req, ctx) {
      const record = await findMonitor(ctx, req.id);
      // A heartbeat stores no checks and takes no objectives: its answer has no figures.
      const slo = record.kind === "heartbeat" ? { availability: null, latency: null } : await monitorSlo(prisma, record.id, record.config, new Date());
      return sloResponse(record.id, slo);
    },

    async getMonitorReport(req, ctx) {
      const now = new Date();
      const month = parseReportMonth(req.month, now);
      const record = await findMonitor(ctx, req.id);
      return monitorReport(prisma, { id: record.id, name: record.config.name }, month, now);
    },

    async getMonitorTimeseries(req, ctx) {
      const { record, timeRange, regions } = await rangeOf(ctx, req, parseTimeseriesRequest);
      const series = await monitorTimeseries(prisma, record.id, timeRange, regions);
      return {
        id: record.id,
        timeRange: req.timeRange,
        bucketSeconds: BigInt(series.bucketMs / 1000),
        buckets: series.buckets.map((b) => ({
          start: timestampFromDate(b.start),
          count: BigInt(b.successful + b.degraded + b.failed),
          successful: BigInt(b.successful),
          degraded: BigInt(b.degraded),
          failed: BigInt(b.failed),
          p50: BigInt(b.percentiles[50]),
          p95: BigInt(b.percentiles[95]),
          p99: BigInt(b.percentiles[99]),
        })),
      };
    },

    async listCheckResults(req, ctx) {
      const { regions, limit } = parseResultsRequest({ regions: req.regions.map(regionCodec.decode), limit: req.limit });
      const record = await findMonitor(ctx, req.id);
      const page = await listCheckResults(prisma, record.id, regions, limit, req.cursor);
      return {
        nextCursor: page.nextCursor,
        results: page.results.map((r) => ({
          id: r.id,
          time: timestampFromDate(r.startedAt),
          region: regionCodec.encode(r.region),
          status: monitorStatusCodec.encode(regionStatusOf(r.status)),
          statusCode: r.statusCode ?? 0,
          latencyMs: r.latencyMs,
          timing: {
            dnsMs: r.timing.dnsMs ?? undefined,
            connectMs: r.timing.connectMs ?? undefined,
            tlsMs: r.timing.tlsMs ?? undefined,
            firstByteMs: r.timing.firstByteMs ?? undefined,
            transferMs: r.timing.transferMs ?? undefined,
          },
          failureReason: r.reason ?? "",
          error: r.error ?? "",
          trigger: r.trigger,
          attempts: r.attempts,
          traceId: r.traceId ?? "",
          inMaintenance: r.inMaintenance,
        })),
      };
    },

    async listHeartbeatPings(req, ctx) {
      const { limit } = parsePage({ limit: req.limit });
      const record = await findMonitor(ctx, req.id);
      if (record.kind !== "heartbeat") {
        throw new ConnectError(`monitor ${req.id} is a ${METHOD_KIND[record.kind]} monitor, which has checks, not pings: read them with ListCheckResults`, Code.FailedPrecondition);
      }
      const pinged = await pings.list(record.id, limit);
      return {
        pings: pinged.map((p) => ({
          id: p.id,
          time: timestampFromDate(p.receivedAt),
          kind: p.kind,
          exitCode: p.exitCode ?? undefined,
          durationMs: p.durationMs === null ? undefined : BigInt(p.durationMs),
          body: p.body,
          method: p.method,
          address: p.address,
          userAgent: p.userAgent,
        })),
      };
    },

    async listRegions(_req, ctx) {
      const regions = await withinQueueTimeout(listRegions(prisma, (region) => scheduler.queue(region), workspaceOf(ctx)));
      return {
        regions: regions.map((r) => {
          const lastSeen = Math.max(...r.agents.map((a) => a.lastSeenAt.getTime()));
          return {
            region: regionCodec.encode(r.region),
            agents: r.agents.map((a) => ({ name: a.name, lastSeenAt: timestampFromDate(a.lastSeenAt) })),
            lastSeenAt: r.agents.length > 0 ? timestampFromDate(new Date(lastSeen)) : undefined,
            checksPerMinute: r.checksPerMinute,
            queueDepth: BigInt(r.depth),
            oldestCheckAgeSeconds: r.oldestAgeSeconds,
          };
        }),
      };
    },
  };
}
