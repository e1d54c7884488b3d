import { Code, ConnectError } from "@connectrpc/connect";
import DataLoader from "dataloader";
import { Prisma, driverRows, type DriverRows, type MonitorRow, type PrismaClient } from "@vigil/db";
import type { MonitorConfigByKind, MonitorKind, MonitorRecord, MonitorStatus } from "@vigil/domain";
import { externalIdTaken, refusingDuplicates } from "../duplicates";
import { keptRecords, type RecordsByVersion } from "./records-by-version";
import { keptPages, type PagesKept } from "./pages-kept";
import { deleteResultsOf } from "../results/delete";

/** Monitor rows <-> domain records. One table holds all kinds; `target` is the url or uri. */
export function recordOfRow(row: MonitorRow): MonitorRecord {
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
  };
  // Only the row's own kind is mapped: ListMonitors maps a hundred rows per call. The kind's fields
  // are assigned, not spread after `common`: V8's optimized code gives each `{ ...a, b }` a hidden
  // class of its own, which for records kept per monitor cost 430 bytes each and made every reader
  // of their fields megamorphic (docs/benchmarks.md, thirteenth pass).
  const config =
    row.kind === "http"
      ? Object.assign(common, {
          url: row.target,
          method: row.method,
          body: row.body ?? "",
          headers: row.headers,
          followRedirects: row.followRedirects ?? true,
          statusCodeAssertions: row.statusCodeAssertions,
          bodyAssertions: row.bodyAssertions,
          headerAssertions: row.headerAssertions,
        })
      : row.kind === "tcp"
        ? Object.assign(common, { uri: row.target })
        : Object.assign(common, { uri: row.target, recordAssertions: row.recordAssertions });
  return {
    id: row.id,
    kind: row.kind,
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
  return {
    name: config.name,
    target: http ? http.url : (config as MonitorConfigByKind["tcp" | "dns"]).uri,
    periodicity: config.periodicity,
    timeoutMs: config.timeout,
    retry: config.retry,
    degradedAtMs: config.degradedAt,
    regions: config.regions,
    active: config.active,
    public: config.public,
    description: config.description,
    openTelemetry: config.openTelemetry ? json(config.openTelemetry) : Prisma.DbNull,
    method: http?.method ?? null,
    body: http?.body ?? null,
    followRedirects: http?.followRedirects ?? null,
    headers: json(http?.headers ?? []),
    statusCodeAssertions: json(http?.statusCodeAssertions ?? []),
    bodyAssertions: json(http?.bodyAssertions ?? []),
    headerAssertions: json(http?.headerAssertions ?? []),
    recordAssertions: json(dns?.recordAssertions ?? []),
  };
}

/**
 * The columns of a monitor row under the Prisma model's field names, for the
 * hot reads (GetMonitor, ListMonitors) that go around the query builder in
 * plain SQL on the driver (driverRows): they are the API's most frequent
 * calls, and building and interpreting the Prisma query cost more than the
 * query itself. Timestamps are read as timestamptz, as driverRows asks.
 */
const MONITOR_ROW = `id, workspace_id AS "workspaceId", kind::text AS kind, name, target, periodicity, method, body, headers,
  timeout_ms AS "timeoutMs", retry, follow_redirects AS "followRedirects", regions, active, public, degraded_at_ms AS "degradedAtMs",
  description, status_code_assertions AS "statusCodeAssertions", body_assertions AS "bodyAssertions",
  header_assertions AS "headerAssertions", record_assertions AS "recordAssertions", open_telemetry AS "openTelemetry", status,
  external_id AS "externalId", created_at AT TIME ZONE 'UTC' AS "createdAt", updated_at AT TIME ZONE 'UTC' AS "updatedAt"`;

/** A write of a monitor's external id, refused as already_exists when another monitor of the workspace (of any kind) has it. */
const uniqueExternalId = <T>(externalId: string | null | undefined, write: () => Promise<T>) =>
  refusingDuplicates(externalIdTaken("monitor", "monitor of this workspace", externalId), write);

/** A monitor asked for in a workspace. */
interface MonitorKey {
  workspaceId: string;
  id: string;
}

export class MonitorRepository {
  private readonly kept: RecordsByVersion;
  private readonly pages: PagesKept;
  private readonly rows: DriverRows;
  /**
   * The row versions of the monitors asked for while this turn of the event
   * loop handles its requests, read in one statement (null: no such monitor
   * in that workspace). Under load many calls about one monitor each are in
   * flight, and a statement's round trip (the driver's write, waking the
   * database) cost more of a GetMonitor than the rest of the call; joining
   * them adds no wait, as the statement goes once the turn's I/O is handled.
   */
  private readonly versions: DataLoader<MonitorKey, string | null>;

  constructor(private readonly prisma: PrismaClient) {
    this.rows = driverRows(prisma);
    this.kept = keptRecords(prisma);
    this.pages = keptPages(prisma);
    this.versions = new DataLoader(
      async (keys) => {
        const rows = await this.rows<{ id: string; workspaceId: string; version: string }>(
          `SELECT id, workspace_id AS "workspaceId", xmin::text AS version FROM monitors WHERE id = ANY($1::text[])`,
          [[...new Set(keys.map((key) => key.id))]],
        );
        const found = new Map(rows.map((row) => [row.id, row]));
        return keys.map(({ workspaceId, id }) => {
          const row = found.get(id);
          return row?.workspaceId === workspaceId ? row.version : null;
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
    const row = await uniqueExternalId(externalId, () =>
      this.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT 1 FROM workspaces WHERE id = ${workspaceId} FOR NO KEY UPDATE`;
        const [held] = await tx.$queryRaw<{ monitors: number }[]>`SELECT monitors FROM workspace_monitor_counts WHERE workspace_id = ${workspaceId}`;
        if ((held?.monitors ?? 0) >= quota) {
          throw new ConnectError(`the workspace has ${quota} monitors, the most it may have; delete one first`, Code.ResourceExhausted);
        }
        return tx.monitor.create({ data: { workspaceId, kind, externalId, ...monitorColumns(kind, config) } });
      }),
    );
    return recordOfRow(row) as MonitorRecord<K>;
  }

  /**
   * The monitor's record: the one kept (records-by-version.ts) while the
   * database's feed of changes says it is unchanged, or while its row's
   * version alone tells so; its columns are read only for a monitor not kept
   * or changed since.
   */
  async find(workspaceId: string, id: string): Promise<MonitorRecord | null> {
    if (this.kept.latest(id) && (await this.kept.caughtUp())) {
      const current = this.kept.current(id);
      // Ids are unique across workspaces: one of another workspace is not found in this one.
      if (current) return current.workspaceId === workspaceId ? current.record : null;
    }
    const readStarted = this.kept.readStarted();
    const kept = this.kept.latest(id);
    if (kept) {
      const version = await this.versions.load({ workspaceId, id });
      if (version === null) return null;
      if (version === kept.version) {
        this.kept.confirm(id, version, readStarted);
        return kept.record;
      }
    }
    return (await this.readAndKeep(workspaceId, [id])).get(id) ?? null;
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
    const { count } = await uniqueExternalId(externalId, () =>
      this.prisma.monitor.updateMany({
        where: { id: expected.id, workspaceId, updatedAt: expected.updatedAt },
        data: { ...monitorColumns(expected.kind, config), externalId },
      }),
    );
    if (count === 0) return null;
    return (await this.find(workspaceId, expected.id)) as MonitorRecord<K> | null;
  }

  /** One page in creation order (then id), and the workspace's total. */
  async list(workspaceId: string, limit: number, offset: number): Promise<{ records: MonitorRecord[]; total: number }> {
    if (this.pages.get(workspaceId, limit, offset) && (await this.kept.caughtUp())) {
      // Asked again: catching up may have dropped it.
      const keptPage = this.pages.get(workspaceId, limit, offset);
      const records = keptPage?.ids.map((id) => this.kept.current(id)?.record);
      if (records?.every((record) => record !== undefined)) return { records, total: keptPage!.total };
    }
    const readStarted = this.kept.readStarted();
    // One statement, so the page and the total come from one snapshot. The total is the count the
    // monitors' triggers keep (workspace_monitor_counts), not a count(*) of the workspace. The page's
    // ids are stepped through on the (workspace_id, created_at, id) index alone, so an offset skips
    // index entries rather than rows; only the page's rows are visited, for their versions. The page
    // comes back as one string ("<id> <version>" pairs, space-separated: uuids and xids have no
    // spaces) in one row: both drivers parse a row's fields one by one, and a hundred rows of ids
    // cost PGlite more to parse than the statement costs to run.
    const [listed] = await this.rows<{ total: number; page: string | null }>(
      `SELECT coalesce((SELECT monitors FROM workspace_monitor_counts WHERE workspace_id = $1), 0) AS total,
              (SELECT string_agg(m.id || ' ' || m.xmin::text, ' ' ORDER BY m.created_at, m.id)
                 FROM monitors AS m
                WHERE m.id = ANY(ARRAY(SELECT id FROM monitors WHERE workspace_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3))
              ) AS page`,
      [workspaceId, limit, offset],
    );
    const { total } = listed!;
    const words = listed!.page?.split(" ") ?? [];
    const page: { id: string; version: string }[] = [];
    for (let i = 0; i < words.length; i += 2) page.push({ id: words[i]!, version: words[i + 1]! });
    this.pages.keep(workspaceId, limit, offset, { ids: page.map(({ id }) => id), total }, readStarted);
    // Taken now: keeping the records read next may let go of the oldest kept ones.
    const unchanged = new Map<string, MonitorRecord>();
    const changed: string[] = [];
    for (const { id, version } of page) {
      const record = this.kept.get(id, version);
      if (!record) {
        changed.push(id);
        continue;
      }
      unchanged.set(id, record);
      // A record kept by a read that heard a change meanwhile is current once a read like this one finds it unchanged.
      this.kept.confirm(id, version, readStarted);
    }
    const read = changed.length > 0 ? await this.readAndKeep(workspaceId, changed) : new Map<string, MonitorRecord>();
    // A monitor deleted between the two reads is left out of the page.
    const records = page.map(({ id }) => unchanged.get(id) ?? read.get(id)).filter((r) => r !== undefined);
    return { records, total };
  }

  /** The workspace's monitors of these ids read in full, each kept at the version read (absent ones left out). */
  private async readAndKeep(workspaceId: string, ids: string[]): Promise<Map<string, MonitorRecord>> {
    const records = await this.readRows(`workspace_id = $1 AND id = ANY($2::text[])`, [workspaceId, ids]);
    return new Map(records.map((record) => [record.id, record]));
  }

  /** Every active monitor of every workspace, for the scheduler's reconciliation; each is kept for the API's reads too. */
  async listActive(): Promise<MonitorRecord[]> {
    return this.readRows("active", []);
  }

  /** The monitors `where` selects, each kept at the version read. */
  private async readRows(where: string, values: unknown[]): Promise<MonitorRecord[]> {
    const readStarted = this.kept.readStarted();
    const rows = await this.rows<MonitorRow & { version: string }>(`SELECT ${MONITOR_ROW}, xmin::text AS version FROM monitors WHERE ${where}`, values);
    return rows.map((row) => {
      const record = recordOfRow(row);
      this.kept.keep(row.version, record, row.workspaceId, readStarted);
      return record;
    });
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.monitor.deleteMany({ where: { id, workspaceId } });
      if (count > 0) await deleteResultsOf(tx, [id]);
      return count > 0;
    });
  }

}
