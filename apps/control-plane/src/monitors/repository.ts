import { Prisma, type MonitorRow, type PrismaClient } from "@vigil/db";
import type { MonitorConfigByKind, MonitorKind, MonitorRecord, MonitorStatus } from "@vigil/domain";
import { externalIdTaken, refusingDuplicates } from "../duplicates";

/** Monitor rows <-> domain records. One table holds all kinds; `target` is the url or uri. */
function toRecord(row: MonitorRow): MonitorRecord {
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
  const byKind = {
    http: () => ({
      ...common,
      url: row.target,
      method: row.method,
      body: row.body ?? "",
      headers: row.headers,
      followRedirects: row.followRedirects ?? true,
      statusCodeAssertions: row.statusCodeAssertions,
      bodyAssertions: row.bodyAssertions,
      headerAssertions: row.headerAssertions,
    }),
    tcp: () => ({ ...common, uri: row.target }),
    dns: () => ({ ...common, uri: row.target, recordAssertions: row.recordAssertions }),
  };
  return {
    id: row.id,
    kind: row.kind,
    // The row was written from a validated config of its kind.
    config: byKind[row.kind]() as unknown as MonitorConfigByKind[MonitorKind],
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

/** A write of a monitor's external id, refused as already_exists when another monitor of the workspace (of any kind) has it. */
const uniqueExternalId = <T>(externalId: string | null | undefined, write: () => Promise<T>) =>
  refusingDuplicates(externalIdTaken("monitor", "monitor of this workspace", externalId), write);

export class MonitorRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async create<K extends MonitorKind>(workspaceId: string, kind: K, config: MonitorConfigByKind[K], externalId: string | null): Promise<MonitorRecord<K>> {
    const row = await uniqueExternalId(externalId, () =>
      this.prisma.monitor.create({ data: { workspaceId, kind, externalId, ...monitorColumns(kind, config) } }),
    );
    return toRecord(row) as MonitorRecord<K>;
  }

  async find(workspaceId: string, id: string): Promise<MonitorRecord | null> {
    const row = await this.prisma.monitor.findFirst({ where: { id, workspaceId } });
    return row && toRecord(row);
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
    const [rows, total] = await Promise.all([
      this.prisma.monitor.findMany({ where: { workspaceId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: limit, skip: offset }),
      this.prisma.monitor.count({ where: { workspaceId } }),
    ]);
    return { records: rows.map(toRecord), total };
  }

  /** Every active monitor of every workspace, for the scheduler's reconciliation. */
  async listActive(): Promise<MonitorRecord[]> {
    return (await this.prisma.monitor.findMany({ where: { active: true } })).map(toRecord);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.monitor.deleteMany({ where: { id, workspaceId } });
    return count > 0;
  }

}
