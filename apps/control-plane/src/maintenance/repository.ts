import { Prisma, type PrismaClient } from "@vigil/db";
import type { MaintenanceFields, MaintenanceTiming, MaintenanceView } from "@vigil/domain";
import { Code, ConnectError } from "@connectrpc/connect";
import { externalIdTaken, refusingDuplicates } from "../duplicates";

const include = {
  monitors: { orderBy: { position: "asc" } },
  components: { orderBy: { position: "asc" } },
} as const satisfies Prisma.MaintenanceWindowInclude;

type Row = Prisma.MaintenanceWindowGetPayload<{ include: typeof include }>;

const toView = (row: Row): MaintenanceView => ({
  id: row.id,
  workspaceId: row.workspaceId,
  externalId: row.externalId,
  title: row.title,
  message: row.message,
  startsAt: row.startsAt,
  endsAt: row.endsAt,
  recurrence: row.recurrence,
  timezone: row.timezone,
  monitorIds: row.monitors.map((m) => m.monitorId),
  pageComponentIds: row.components.map((c) => c.componentId),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

const positioned = <K extends string>(key: K, ids: readonly string[]) => ids.map((id, position) => ({ [key]: id, position }) as Record<K, string> & { position: number });

/**
 * A monitor or component deleted between the service's check and the write is refused by its foreign
 * key; an external id another window has, by the unique index.
 */
async function guarded<T>(externalId: string | null | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await refusingDuplicates(externalIdTaken("maintenance", "maintenance window of this workspace", externalId), run);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2003") {
      throw new ConnectError("a monitor or component it names was deleted meanwhile; try again", Code.FailedPrecondition);
    }
    throw error;
  }
}

type Columns = Omit<MaintenanceFields, "monitorIds" | "pageComponentIds">;

/** Maintenance windows (maintenance_windows) with the monitors and status page components they name. */
export class MaintenanceRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Stores the window; `also` writes in the same transaction, given the window as stored (both commit, or neither). */
  async create(
    workspaceId: string,
    fields: MaintenanceFields,
    externalId: string | null,
    also: (tx: Prisma.TransactionClient, window: MaintenanceView) => Promise<void>,
  ): Promise<MaintenanceView> {
    const { monitorIds, pageComponentIds, ...columns } = fields;
    return guarded(externalId, () => this.prisma.$transaction(async (tx) => {
      const row = await tx.maintenanceWindow.create({
        data: {
          workspaceId,
          externalId,
          ...columns,
          monitors: { create: positioned("monitorId", monitorIds) },
          components: { create: positioned("componentId", pageComponentIds) },
        },
        include,
      });
      const window = toView(row);
      await also(tx, window);
      return window;
    }));
  }

  async find(workspaceId: string, id: string): Promise<MaintenanceView | null> {
    const row = await this.prisma.maintenanceWindow.findFirst({ where: { id, workspaceId }, include });
    return row && toView(row);
  }

  /** The workspace's windows, latest start first, and their number. */
  async list(workspaceId: string, limit: number, offset: number): Promise<{ records: MaintenanceView[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.prisma.maintenanceWindow.findMany({ where: { workspaceId }, orderBy: [{ startsAt: "desc" }, { id: "desc" }], take: limit, skip: offset, include }),
      this.prisma.maintenanceWindow.count({ where: { workspaceId } }),
    ]);
    return { records: rows.map(toView), total };
  }

  /** Writes the changed fields; a list sent replaces the window's; `externalId` undefined keeps it. Null when the window is gone. */
  async update(id: string, changes: Partial<MaintenanceFields>, externalId?: string | null): Promise<MaintenanceView | null> {
    const { monitorIds, pageComponentIds, ...columns } = changes;
    return guarded(externalId, () =>
      this.prisma.$transaction(async (tx) => {
        // updated_at moves even when only the lists change: the window changed.
        const { count } = await tx.maintenanceWindow.updateMany({ where: { id }, data: { ...(columns as Partial<Columns>), ...(externalId === undefined ? {} : { externalId }), updatedAt: new Date() } });
        if (count === 0) return null;
        if (monitorIds) {
          await tx.maintenanceWindowMonitor.deleteMany({ where: { windowId: id } });
          await tx.maintenanceWindowMonitor.createMany({ data: positioned("monitorId", monitorIds).map((m) => ({ windowId: id, ...m })) });
        }
        if (pageComponentIds) {
          await tx.maintenanceWindowComponent.deleteMany({ where: { windowId: id } });
          await tx.maintenanceWindowComponent.createMany({ data: positioned("componentId", pageComponentIds).map((c) => ({ windowId: id, ...c })) });
        }
        return toView(await tx.maintenanceWindow.findUniqueOrThrow({ where: { id }, include }));
      }),
    );
  }

  async delete(id: string): Promise<boolean> {
    return (await this.prisma.maintenanceWindow.deleteMany({ where: { id } })).count > 0;
  }

  /** Which of these ids are monitors of the workspace. */
  async monitorsOf(workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.prisma.monitor.findMany({ where: { workspaceId, id: { in: [...ids] } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }

  /** Which of these ids are components of the workspace's pages, and the pages they are on. */
  async componentsOf(workspaceId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.prisma.statusPageComponent.findMany({ where: { page: { workspaceId }, id: { in: [...ids] } }, select: { id: true, pageId: true } });
    return new Map(rows.map((r) => [r.id, r.pageId]));
  }
}

/**
 * The windows naming each of `monitorIds` (those naming none are left out): what "in maintenance at t" is asked of.
 * One statement: every stored batch of results asks it.
 */
export async function windowsOfMonitors(tx: Prisma.TransactionClient | PrismaClient, monitorIds: readonly string[]): Promise<Map<string, MaintenanceTiming[]>> {
  const out = new Map<string, MaintenanceTiming[]>();
  if (monitorIds.length === 0) return out;
  const rows = await tx.$queryRaw<{ monitor_id: string; starts_at: Date; ends_at: Date; recurrence: string; timezone: string }[]>`
    SELECT l.monitor_id, w.starts_at, w.ends_at, w.recurrence, w.timezone
    FROM maintenance_window_monitors l JOIN maintenance_windows w ON w.id = l.window_id
    WHERE l.monitor_id = ANY(${[...monitorIds]}::text[])`;
  for (const { monitor_id, starts_at, ends_at, recurrence, timezone } of rows) {
    out.set(monitor_id, [...(out.get(monitor_id) ?? []), { startsAt: starts_at, endsAt: ends_at, recurrence, timezone }]);
  }
  return out;
}
