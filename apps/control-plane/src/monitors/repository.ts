import { Code, ConnectError } from "@connectrpc/connect";
import DataLoader from "dataloader";
import { Prisma, driverRows, type DriverRows, type MonitorRow, type PrismaClient } from "@vigil/db";
import {
  DEFAULTS,
  ValidationError,
  dependencyViolations,
  type DependencyNode,
  type HeartbeatMonitorConfig,
  type HeartbeatRecord,
  type MonitorConfigByKind,
  type MonitorKind,
  type MonitorRecord,
  type MonitorStatus,
  type StoredMonitor,
} from "@vigil/domain";
import { externalIdTaken, refusingDuplicates } from "../duplicates";
import { deleteResultsOf } from "../results/delete";

/** A monitor row as MONITOR_COLUMNS read it: with its dependsOn, from its edges. */
type Row = MonitorRow & { dependsOn: string[] };

/** Monitor rows <-> domain records. One table holds all kinds; `target` is the url or uri (empty for heartbeats). */
export function recordOfRow(row: Row): StoredMonitor {
  if (row.kind === "heartbeat") return heartbeatOfRow(row);
  return checkedRecordOfRow(row);
}

function heartbeatOfRow(row: Row): HeartbeatRecord {
  const config: HeartbeatMonitorConfig = {
    name: row.name,
    periodSeconds: row.periodSeconds,
    cron: row.cron ?? "",
    timezone: row.timezone ?? DEFAULTS.timezone,
    graceSeconds: row.graceSeconds ?? DEFAULTS.heartbeatGraceSeconds,
    description: row.description,
    active: row.active,
    public: row.public,
    dependsOn: row.dependsOn,
  };
  const { id, externalId, createdAt, updatedAt } = row;
  return { id, kind: "heartbeat", config, externalId, pingToken: row.pingToken!, status: row.status as MonitorStatus, createdAt, updatedAt };
}

/** The columns of a heartbeat monitor's row; those of the checked kinds are left empty (no agent ever sees it). */
export function heartbeatColumns(config: HeartbeatMonitorConfig) {
  return {
    name: config.name,
    target: "",
    periodicity: "",
    timeoutMs: 0,
    retry: 0,
    degradedAtMs: 0,
    regions: [],
    active: config.active,
    public: config.public,
    description: config.description,
    periodSeconds: config.periodSeconds,
    cron: config.cron,
    timezone: config.timezone,
    graceSeconds: config.graceSeconds,
  };
}

function checkedRecordOfRow(row: Row): MonitorRecord {
  const common = {
    name: row.name,
    periodicity: row.periodicity,
    timeout: row.timeoutMs,
    retry: row.retry,
    degradedAt: row.degradedAtMs,
    regions: row.regions,
    active: row.active,
    public: row.public,
    description: row.description,
    openTelemetry: row.openTelemetry ?? null,
    alertQuorum: row.alertQuorum,
    confirmations: row.confirmations,
    recoveryConfirmations: row.recoveryConfirmations,
    dependsOn: row.dependsOn,
    availabilityObjective: row.availabilityObjective,
    latencyObjectiveMs: row.latencyObjectiveMs,
    latencyObjectivePercent: row.latencyObjectivePercent,
  };
  // The kind's fields onto `common`, not `{ ...common, url, … }`: Node 20's V8 gives a literal that starts with a
  // spread and then adds properties it did not have a hidden class of its own on every call, kept in the old
  // generation until a full collection (~5 KB a GetMonitor call, a third of what the call left there;
  // docs/benchmarks.md, bench:api).
  const config = Object.assign(
    common,
    row.kind === "http"
      ? {
          url: row.target,
          method: row.method,
          body: row.body ?? "",
          headers: row.headers,
          followRedirects: row.followRedirects ?? true,
          traceHeader: row.traceHeader ?? DEFAULTS.traceHeader,
          certificateExpiryDays: row.certificateExpiryDays ?? DEFAULTS.certificateExpiryDays,
          statusCodeAssertions: row.statusCodeAssertions,
          bodyAssertions: row.bodyAssertions,
          headerAssertions: row.headerAssertions,
          jsonBodyAssertions: row.jsonBodyAssertions,
        }
      : row.kind === "grpc"
        ? {
            uri: row.target,
            service: row.grpcService ?? "",
            tls: row.grpcTls ?? DEFAULTS.grpcTls,
            headers: row.headers,
            certificateExpiryDays: row.certificateExpiryDays ?? DEFAULTS.certificateExpiryDays,
            expectedStatus: row.grpcExpectedStatus ?? DEFAULTS.grpcExpectedStatus,
          }
        : row.kind === "tcp"
          ? { uri: row.target }
          : { uri: row.target, recordAssertions: row.recordAssertions },
  );
  return {
    id: row.id,
    kind: row.kind as MonitorKind,
    // The row was written from a validated config of its kind.
    config: config as unknown as MonitorConfigByKind[MonitorKind],
    externalId: row.externalId,
    status: row.status as MonitorStatus,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The columns of a monitor row for a validated configuration of its kind. */
export function monitorColumns(kind: MonitorKind, config: MonitorConfigByKind[MonitorKind]) {
  const json = (value: unknown) => value as Prisma.InputJsonValue;
  const http = kind === "http" ? (config as MonitorConfigByKind["http"]) : undefined;
  const dns = kind === "dns" ? (config as MonitorConfigByKind["dns"]) : undefined;
  const grpc = kind === "grpc" ? (config as MonitorConfigByKind["grpc"]) : undefined;
  return {
    name: config.name,
    target: http ? http.url : (config as MonitorConfigByKind["tcp" | "dns" | "grpc"]).uri,
    periodicity: config.periodicity,
    timeoutMs: config.timeout,
    retry: config.retry,
    degradedAtMs: config.degradedAt,
    regions: config.regions,
    active: config.active,
    public: config.public,
    description: config.description,
    openTelemetry: config.openTelemetry ? json(config.openTelemetry) : Prisma.DbNull,
    alertQuorum: config.alertQuorum,
    confirmations: config.confirmations,
    recoveryConfirmations: config.recoveryConfirmations,
    availabilityObjective: config.availabilityObjective,
    latencyObjectiveMs: config.latencyObjectiveMs,
    latencyObjectivePercent: config.latencyObjectivePercent,
    method: http?.method ?? null,
    body: http?.body ?? null,
    followRedirects: http?.followRedirects ?? null,
    traceHeader: http?.traceHeader ?? null,
    certificateExpiryDays: (http ?? grpc)?.certificateExpiryDays ?? null,
    grpcService: grpc?.service ?? null,
    grpcTls: grpc?.tls ?? null,
    grpcExpectedStatus: grpc?.expectedStatus ?? null,
    headers: json((http ?? grpc)?.headers ?? []),
    statusCodeAssertions: json(http?.statusCodeAssertions ?? []),
    bodyAssertions: json(http?.bodyAssertions ?? []),
    headerAssertions: json(http?.headerAssertions ?? []),
    recordAssertions: json(dns?.recordAssertions ?? []),
    jsonBodyAssertions: json(http?.jsonBodyAssertions ?? []),
  };
}

/**
 * The columns of a monitor row under the Prisma model's field names, for the
 * hot reads (GetMonitor, ListMonitors) that go around the query builder in
 * plain SQL on the driver (driverRows): they are the API's most frequent
 * calls, and building and interpreting the Prisma query cost more than the
 * query itself. Timestamps are timestamptz, whose JSON carries its offset.
 */
const MONITOR_COLUMNS = `id, workspace_id AS "workspaceId", kind::text AS kind, name, target, periodicity, method, body, headers,
  timeout_ms AS "timeoutMs", retry, follow_redirects AS "followRedirects", trace_header AS "traceHeader", certificate_expiry_days AS "certificateExpiryDays",
  grpc_service AS "grpcService", grpc_tls AS "grpcTls", grpc_expected_status AS "grpcExpectedStatus", regions, active, public, degraded_at_ms AS "degradedAtMs",
  description, status_code_assertions AS "statusCodeAssertions", body_assertions AS "bodyAssertions",
  header_assertions AS "headerAssertions", record_assertions AS "recordAssertions",
  json_body_assertions AS "jsonBodyAssertions", open_telemetry AS "openTelemetry", status,
  period_seconds AS "periodSeconds", cron, timezone, grace_seconds AS "graceSeconds", ping_token AS "pingToken",
  alert_quorum AS "alertQuorum", confirmations, recovery_confirmations AS "recoveryConfirmations",
  availability_objective AS "availabilityObjective", latency_objective_ms AS "latencyObjectiveMs", latency_objective_percent AS "latencyObjectivePercent",
  ARRAY(SELECT d.depends_on_id FROM monitor_dependencies d WHERE d.monitor_id = monitors.id ORDER BY d.position) AS "dependsOn",
  external_id AS "externalId", created_at AT TIME ZONE 'UTC' AS "createdAt", updated_at AT TIME ZONE 'UTC' AS "updatedAt"`;

/**
 * The rows a query selects (monitors with MONITOR_COLUMNS, or a page's ids and versions) as one JSON array. A
 * hundred rows of two dozen columns cost both drivers more to hand over and parse value by value than the
 * statement costs to run (on PGlite, whose values cross from its thread as text, twice as much); one JSON
 * text is one value and one JSON.parse.
 */
const monitorsAsJson = (query: string) => `(SELECT coalesce(json_agg(selected), '[]')::text FROM (${query}) AS selected)`;

type MonitorJson = Omit<Row, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string };

const rowsOfJson = (json: string): Row[] =>
  (JSON.parse(json) as MonitorJson[]).map((row) => ({ ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) }));

/** A write of a monitor's external id, refused as already_exists when another monitor of the workspace (of any kind) has it. */
const uniqueExternalId = <T>(externalId: string | null | undefined, write: () => Promise<T>) =>
  refusingDuplicates(externalIdTaken("monitor", "monitor of this workspace", externalId), write);

type Tx = Prisma.TransactionClient;

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * Checks a monitor's dependsOn against its workspace (dependencyViolations) and writes it as the monitor's edges,
 * in the transaction that writes the monitor. The workspace's row is held until it commits, so that two updates
 * at once cannot close a cycle neither sees; the monitors named are held against a delete until then too.
 * `monitorId` of a monitor being created has no dependents yet, so it can close no cycle.
 * @throws ValidationError naming monitor.dependsOn (the transaction then writes nothing)
 */
async function writeDependencies(tx: Tx, workspaceId: string, monitorId: string, dependsOn: readonly string[], created: boolean): Promise<void> {
  await tx.$executeRaw`SELECT 1 FROM workspaces WHERE id = ${workspaceId} FOR NO KEY UPDATE`;
  // Only the monitors the new edges reach matter to a cycle: those named, and what they depend on, transitively.
  const reached = await tx.$queryRaw<{ id: string; name: string; depends_on: string[] }[]>`
    WITH RECURSIVE reach(id) AS (
      SELECT id FROM monitors WHERE workspace_id = ${workspaceId} AND id = ANY(${[...dependsOn]}::text[])
      UNION SELECT d.depends_on_id FROM monitor_dependencies d JOIN reach ON d.monitor_id = reach.id
    )
    SELECT m.id, m.name,
      ARRAY(SELECT d.depends_on_id FROM monitor_dependencies d WHERE d.monitor_id = m.id ORDER BY d.position) AS depends_on
    FROM monitors m WHERE m.id IN (SELECT id FROM reach) ORDER BY m.id FOR KEY SHARE OF m`;
  const graph = new Map<string, DependencyNode>(reached.map((m) => [m.id, { name: m.name, dependsOn: m.depends_on }]));
  const violations = dependencyViolations(created ? undefined : monitorId, dependsOn, graph);
  if (violations.length > 0) throw new ValidationError(violations);
  await tx.$executeRaw`DELETE FROM monitor_dependencies WHERE monitor_id = ${monitorId}`;
  if (dependsOn.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO monitor_dependencies (monitor_id, depends_on_id, position)
    SELECT ${monitorId}, d.id, d.position - 1 FROM unnest(${[...dependsOn]}::text[]) WITH ORDINALITY AS d(id, position)`;
}

/** A monitor's id and the version of its row. */
export interface MonitorVersion {
  id: string;
  version: string;
}

/** A monitor asked for in a workspace. */
interface MonitorKey {
  workspaceId: string;
  id: string;
}

export class MonitorRepository {
  private readonly rows: DriverRows;
  /**
   * The monitors asked for while this turn of the event loop handles its
   * requests, read in one statement (null: no such monitor in that
   * workspace). Under load many calls about one monitor each are in flight,
   * and a statement's round trip costs more of a GetMonitor than the rest of
   * the call; joining them adds no wait, as the statement goes once the
   * turn's I/O is handled. Nothing is kept between turns: every call reads
   * the monitor as the database has it.
   */
  private readonly byId: DataLoader<MonitorKey, StoredMonitor | null>;

  constructor(private readonly prisma: PrismaClient) {
    this.rows = driverRows(prisma);
    this.byId = new DataLoader(
      async (keys) => {
        const rows = await this.read(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE id = ANY($1::text[])`, [[...new Set(keys.map((key) => key.id))]]);
        const found = new Map(rows.map((row) => [row.id, row]));
        // Ids are unique across workspaces: one of another workspace is not found in this one.
        return keys.map(({ workspaceId, id }) => {
          const row = found.get(id);
          return row?.workspaceId === workspaceId ? recordOfRow(row) : null;
        });
      },
      { cache: false, batchScheduleFn: (send) => setImmediate(send) },
    );
  }

  /**
   * Writes a new monitor unless its workspace already has `quota` of them
   * (resource_exhausted). Creates in one workspace take turns on the
   * workspace's row, so that two at once cannot both take its last place.
   */
  async create<K extends MonitorKind>(
    workspaceId: string,
    kind: K,
    config: MonitorConfigByKind[K],
    externalId: string | null,
    quota: number,
  ): Promise<MonitorRecord<K>> {
    const row = await this.createRow(workspaceId, externalId, quota, { kind, ...monitorColumns(kind, config) }, config.dependsOn);
    return recordOfRow(row) as MonitorRecord<K>;
  }

  private createRow(
    workspaceId: string,
    externalId: string | null,
    quota: number,
    columns: Omit<Prisma.MonitorUncheckedCreateInput, "workspaceId" | "externalId">,
    dependsOn: readonly string[],
  ): Promise<Row> {
    return uniqueExternalId(externalId, () =>
      this.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT 1 FROM workspaces WHERE id = ${workspaceId} FOR NO KEY UPDATE`;
        const [held] = await tx.$queryRaw<{ monitors: number }[]>`SELECT monitors FROM workspace_monitor_counts WHERE workspace_id = ${workspaceId}`;
        if ((held?.monitors ?? 0) >= quota) {
          throw new ConnectError(`the workspace has ${quota} monitors, the most it may have; delete one first`, Code.ResourceExhausted);
        }
        const row = await tx.monitor.create({ data: { workspaceId, externalId, ...columns } });
        if (dependsOn.length > 0) await writeDependencies(tx, workspaceId, row.id, dependsOn, true);
        return { ...row, dependsOn: [...dependsOn] };
      }),
    );
  }

  /** Writes a new heartbeat monitor with its ping token, under the same quota as create. */
  async createHeartbeat(workspaceId: string, config: HeartbeatMonitorConfig, externalId: string | null, pingToken: string, quota: number): Promise<HeartbeatRecord> {
    const row = await this.createRow(workspaceId, externalId, quota, { kind: "heartbeat", pingToken, ...heartbeatColumns(config) }, config.dependsOn);
    return heartbeatOfRow(row);
  }

  async find(workspaceId: string, id: string): Promise<StoredMonitor | null> {
    return this.byId.load({ workspaceId, id });
  }

  /**
   * Writes a new configuration, and the external id unless it is undefined,
   * only if the monitor has not changed since `expected` was read (optimistic
   * concurrency), so concurrent partial updates never silently undo each
   * other. Returns null on a conflict.
   */
  async replaceConfig<K extends MonitorKind>(
    workspaceId: string,
    expected: MonitorRecord<K>,
    config: MonitorConfigByKind[K],
    externalId: string | null | undefined,
  ): Promise<MonitorRecord<K> | null> {
    return (await this.replaceRow(workspaceId, expected, { ...monitorColumns(expected.kind, config), externalId }, config.dependsOn)) as MonitorRecord<K> | null;
  }

  /** replaceConfig of a heartbeat monitor. */
  async replaceHeartbeat(workspaceId: string, expected: HeartbeatRecord, config: HeartbeatMonitorConfig, externalId: string | null | undefined) {
    return (await this.replaceRow(workspaceId, expected, { ...heartbeatColumns(config), externalId }, config.dependsOn)) as HeartbeatRecord | null;
  }

  private async replaceRow(
    workspaceId: string,
    expected: StoredMonitor,
    data: Prisma.MonitorUpdateManyMutationInput,
    dependsOn: readonly string[],
  ): Promise<StoredMonitor | null> {
    const where = { id: expected.id, workspaceId, updatedAt: expected.updatedAt };
    const { count } = await uniqueExternalId(data.externalId as string | null | undefined, () =>
      sameList(expected.config.dependsOn, dependsOn)
        ? this.prisma.monitor.updateMany({ where, data })
        : this.prisma.$transaction(async (tx) => {
            const updated = await tx.monitor.updateMany({ where, data });
            if (updated.count > 0) await writeDependencies(tx, workspaceId, expected.id, dependsOn, false);
            return updated;
          }),
    );
    if (count === 0) return null;
    return this.find(workspaceId, expected.id);
  }

  /**
   * One page in creation order (then id) as each monitor's id and row version (xmin: every write to the row gives it
   * a new one), and the workspace's total. One statement, so that the page and the total come from one snapshot; the
   * total is the count the monitors' triggers keep (workspace_monitor_counts), not a count(*) of the workspace.
   */
  async listVersions(workspaceId: string, limit: number, offset: number): Promise<{ versions: MonitorVersion[]; total: number }> {
    const [listed] = await this.rows<{ total: number; page: string }>(
      `SELECT coalesce((SELECT monitors FROM workspace_monitor_counts WHERE workspace_id = $1), 0) AS total,
              ${monitorsAsJson(`SELECT id, xmin::text AS version FROM monitors WHERE workspace_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`)} AS page`,
      [workspaceId, limit, offset],
    );
    return { versions: JSON.parse(listed!.page) as MonitorVersion[], total: listed!.total };
  }

  /**
   * The workspace's monitors changed after `changed` or checked (a region's newest result started) from `checked` on,
   * in creation order (then id), as ids and row versions: at most `limit`. Strictly after for changes: monitors
   * written in one transaction share their updated_at, and a newest one shared by more than `limit` would make
   * every later call answer a whole page; results rarely share their start, and a newer one soon moves `checked`.
   */
  async changedVersions(workspaceId: string, changed: Date, checked: Date, limit: number): Promise<MonitorVersion[]> {
    const [listed] = await this.rows<{ page: string }>(
      `SELECT ${monitorsAsJson(`SELECT id, xmin::text AS version FROM monitors m WHERE workspace_id = $1
         AND (updated_at > $2 OR EXISTS (SELECT 1 FROM monitor_region_statuses s WHERE s.monitor_id = m.id AND s.last_result_at >= $3))
         ORDER BY created_at, id LIMIT $4`)} AS page`,
      [workspaceId, changed, checked, limit],
    );
    return JSON.parse(listed!.page) as MonitorVersion[];
  }

  /** The monitors of the workspace among `ids`, each with its row version. */
  async findVersioned(workspaceId: string, ids: string[]): Promise<{ record: StoredMonitor; version: string }[]> {
    const rows = await this.read(`SELECT xmin::text AS version, ${MONITOR_COLUMNS} FROM monitors WHERE workspace_id = $1 AND id = ANY($2::text[])`, [
      workspaceId,
      ids,
    ]);
    return rows.map((row) => ({ record: recordOfRow(row), version: (row as Row & { version: string }).version }));
  }

  /**
   * Every active monitor of every workspace that agents check, for the scheduler's reconciliation: row by row, as
   * they are unbounded. Heartbeats are not checked: their pings come to the control plane.
   */
  async listActive(): Promise<MonitorRecord[]> {
    return (await this.rows<Row>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE active AND kind <> 'heartbeat'`, [])).map(checkedRecordOfRow);
  }

  /** The monitors a bounded query selects (a page, the ids of one turn), as one JSON text. */
  private async read(query: string, values: unknown[]): Promise<Row[]> {
    const [{ monitors }] = (await this.rows<{ monitors: string }>(`SELECT ${monitorsAsJson(query)} AS monitors`, values)) as [{ monitors: string }];
    return rowsOfJson(monitors);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.monitor.deleteMany({ where: { id, workspaceId } });
      if (count > 0) await deleteResultsOf(tx, [id]);
      return count > 0;
    });
  }
}
