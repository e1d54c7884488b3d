import { Prisma, type PrismaClient } from "@vigil/db";
import type { AffectedComponent, IncidentFields, IncidentImpact, IncidentStatus, IncidentView } from "@vigil/domain";
import { Code, ConnectError } from "@connectrpc/connect";
import { refusingDuplicates } from "../../duplicates";

const include = {
  components: { orderBy: { position: "asc" } },
  updates: { orderBy: [{ createdAt: "desc" }, { id: "desc" }] },
} as const satisfies Prisma.StatusPageIncidentInclude;

type Row = Prisma.StatusPageIncidentGetPayload<{ include: typeof include }>;

const toView = (row: Row): IncidentView => ({
  id: row.id,
  pageId: row.pageId,
  title: row.title,
  // Rows are written from validated values.
  status: row.status as IncidentStatus,
  components: row.components.map((c) => ({ componentId: c.componentId, impact: c.impact as IncidentImpact })),
  postmortem: row.postmortem,
  monitorIncidentId: row.monitorIncidentId,
  internal: row.internal,
  updates: row.updates.map((u) => ({ id: u.id, incidentId: u.incidentId, status: u.status as IncidentStatus, message: u.message, createdAt: u.createdAt })),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  resolvedAt: row.resolvedAt,
});

const componentRows = (components: readonly AffectedComponent[]) => components.map((c, position) => ({ ...c, position }));

/**
 * Runs a write naming components and an automatic incident that the service
 * found: one automatic incident is told of by one incident of a page (the
 * unique index settles a race), and a component or incident deleted since is
 * refused by the foreign keys, answered as such rather than as a failure.
 */
async function guarded<T>(monitorIncidentId: string | null, run: () => Promise<T>): Promise<T> {
  try {
    return await refusingDuplicates({ monitor_incident_id: `incident.monitorIncidentId: another incident of this page already tells of ${monitorIncidentId}` }, run);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2003") {
      throw new ConnectError("a component or incident it names, or its page, was deleted meanwhile; try again", Code.FailedPrecondition);
    }
    throw error;
  }
}

/** What a write also stores in its transaction, given the incident as written: both commit, or neither. */
export type AlsoWrite = (tx: Prisma.TransactionClient, incident: IncidentView) => Promise<void>;
const noMore: AlsoWrite = async () => {};

/** The incidents written on status pages (status_page_incidents), with the components they name and their updates. */
export class StatusPageIncidentRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Stores the incident with its first update (its status and message), both at `at`; `also` writes in the same transaction. */
  async create(pageId: string, fields: IncidentFields, at: Date, also: AlsoWrite = noMore): Promise<IncidentView> {
    const monitorIncidentId = fields.monitorIncidentId || null;
    return guarded(monitorIncidentId, () => this.prisma.$transaction(async (tx) => {
      const row = await tx.statusPageIncident.create({
        data: {
          pageId,
          title: fields.title,
          status: fields.status,
          postmortem: fields.postmortem,
          postmortemAt: fields.postmortem ? at : null,
          monitorIncidentId,
          internal: fields.internal,
          createdAt: at,
          resolvedAt: fields.status === "resolved" ? at : null,
          components: { create: componentRows(fields.components) },
          updates: { create: { status: fields.status, message: fields.message, createdAt: at } },
        },
        include,
      });
      const view = toView(row);
      await also(tx, view);
      return view;
    }));
  }

  /** The incident with this id on a page of the workspace, or null. */
  async find(workspaceId: string, id: string): Promise<IncidentView | null> {
    const row = await this.prisma.statusPageIncident.findFirst({ where: { id, page: { workspaceId } }, include });
    return row && toView(row);
  }

  /** A page's incidents, newest first, and their number. */
  async list(pageId: string, limit: number, offset: number): Promise<{ records: IncidentView[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.prisma.statusPageIncident.findMany({ where: { pageId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit, skip: offset, include }),
      this.prisma.statusPageIncident.count({ where: { pageId } }),
    ]);
    return { records: rows.map(toView), total };
  }

  /**
   * Adds an update and moves the incident to its status, in one transaction
   * that locks the incident's row, so that the limit on updates holds against
   * concurrent writers. `check` sees the incident as locked and may refuse;
   * `also` writes in the same transaction. Null when the incident is gone.
   */
  async addUpdate(id: string, update: { status: IncidentStatus; message: string }, at: Date, check: (updates: number) => void, also: AlsoWrite = noMore): Promise<IncidentView | null> {
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM status_page_incidents WHERE id = ${id} FOR UPDATE`;
      if (locked.length === 0) return null;
      check(await tx.statusPageIncidentUpdate.count({ where: { incidentId: id } }));
      await tx.statusPageIncidentUpdate.create({ data: { incidentId: id, ...update, createdAt: at } });
      const row = await tx.statusPageIncident.update({
        where: { id },
        data: { status: update.status, resolvedAt: update.status === "resolved" ? at : null },
        include,
      });
      const view = toView(row);
      await also(tx, view);
      return view;
    });
  }

  /**
   * Writes the changed fields; a components list replaces the incident's. A
   * postmortem written is dated `at` (undated when cleared). Null when the incident is gone.
   */
  async update(id: string, changes: Partial<Pick<IncidentFields, "title" | "postmortem" | "internal" | "components">>, at: Date): Promise<IncidentView | null> {
    const { components, ...columns } = changes;
    return guarded(null, () => this.prisma.$transaction(async (tx) => {
      const postmortemAt = columns.postmortem === undefined ? {} : { postmortemAt: columns.postmortem ? at : null };
      const { count } = await tx.statusPageIncident.updateMany({ where: { id }, data: { ...columns, ...postmortemAt } });
      if (count === 0) return null;
      if (components) {
        await tx.statusPageIncidentComponent.deleteMany({ where: { incidentId: id } });
        await tx.statusPageIncidentComponent.createMany({ data: componentRows(components).map((c) => ({ incidentId: id, ...c })) });
      }
      return toView(await tx.statusPageIncident.findUniqueOrThrow({ where: { id }, include }));
    }));
  }

  async delete(id: string): Promise<boolean> {
    return (await this.prisma.statusPageIncident.deleteMany({ where: { id } })).count > 0;
  }

  /** Which of these ids are components of the page. */
  async componentsOfPage(pageId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.prisma.statusPageComponent.findMany({ where: { pageId, id: { in: [...ids] } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }

  /** Whether the automatic incident is of the workspace and of a monitor the page shows. */
  async monitorIncidentOnPage(workspaceId: string, pageId: string, monitorIncidentId: string): Promise<boolean> {
    const count = await this.prisma.incident.count({
      where: { id: monitorIncidentId, workspaceId, monitor: { statusPageComponents: { some: { pageId } } } },
    });
    return count > 0;
  }
}
