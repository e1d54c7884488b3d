import { Code, ConnectError } from "@connectrpc/connect";
import { Prisma, type PrismaClient } from "@vigil/db";
import { componentReferenceViolations, throwViolations, type AccessType, type PageLanguage, type ComponentType, type ComponentView, type GroupView, type PageFields, type StatusPageView } from "@vigil/domain";
import { externalIdTaken, refusingDuplicates } from "../duplicates";
import { StatusPageIncidentRepository } from "./incidents/repository";
import { SubscriberDirectory } from "./subscribers/repository";

/** A stored page: what answers show, plus what only the service reads. */
export interface PageRecord extends StatusPageView {
  workspaceId: string;
  /** scrypt (password.ts); null when the page has no password. */
  passwordHash: string | null;
  accessVersion: number;
}

/** The columns of a page a create or an update writes (an update only those it changes). */
export type PageWrite = Omit<PageFields, "password"> & Pick<PageRecord, "passwordHash" | "passwordFingerprint" | "externalId">;

/** The columns of a group a create or an update writes. */
export type GroupWrite = Pick<GroupView, "name" | "externalId">;

/** What a create of a component writes; no external id is none. */
export type ComponentWrite = Omit<ComponentView, "id" | "pageId" | "externalId" | "createdAt" | "updatedAt"> & Partial<Pick<ComponentView, "externalId">>;

export interface Listed<T> {
  records: T[];
  total: number;
}

type PageRow = Prisma.StatusPageGetPayload<object>;
type ComponentRow = Prisma.StatusPageComponentGetPayload<object>;

const toPage = (row: PageRow): PageRecord => ({
  ...row,
  customDomain: row.customDomain ?? "",
  // The row was written from a validated access type.
  accessType: row.accessType as AccessType,
  language: row.language as PageLanguage,
});

/** A custom domain is stored as NULL when the page has none, so that the unique index allows many such pages. */
const pageColumns = (write: Partial<PageWrite>) => ({
  ...write,
  ...(write.customDomain === undefined ? {} : { customDomain: write.customDomain || null }),
});

const toComponent = ({ position, groupId, monitorId, type, ...row }: ComponentRow): ComponentView => ({
  ...row,
  type: type as ComponentType,
  monitorId: monitorId ?? "",
  order: position,
  groupId: groupId ?? "",
});

/** The API's `order` is the column `position` ("order" is a word of SQL); empty references are NULL. */
const componentColumns = ({ order, groupId, monitorId, ...write }: Partial<ComponentWrite>) => ({
  ...write,
  ...(order === undefined ? {} : { position: order }),
  ...(groupId === undefined ? {} : { groupId: groupId || null }),
  ...(monitorId === undefined ? {} : { monitorId: monitorId || null }),
});

const creationOrder = [{ createdAt: "asc" }, { id: "asc" }] as const;
/** Components in display order: by `order`, ties by creation. */
const displayOrder = [{ position: "asc" }, { createdAt: "asc" }, { id: "asc" }] as const;

/**
 * Runs a write of a component whose monitor, group or page the service found,
 * but which a concurrent delete removed since: the database's foreign keys
 * refuse it, and the answer says which reference is gone, as the service's
 * own check would have.
 */
async function referencesKept<T>(references: { monitorId?: string; groupId?: string }, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== "P2003") throw error;
    const constraint = JSON.stringify(error.meta ?? {});
    const gone = ["monitor", "group"].find((reference) => constraint.includes(`${reference}_id`));
    if (!gone) throw new ConnectError("the status page was deleted", Code.NotFound);
    throwViolations(componentReferenceViolations(references, { monitor: () => gone !== "monitor", group: () => gone !== "group" }), "component");
    throw error;
  }
}

/**
 * Runs a write of a page's slug, custom domain (both unique across the
 * deployment) or external id (unique in the workspace); a taken one is
 * already_exists, naming the field.
 */
const uniquePage = <T>(write: Partial<PageWrite>, run: () => Promise<T>) =>
  refusingDuplicates(
    {
      slug: `statusPage.slug: ${write.slug} is already taken by another page`,
      custom_domain: `statusPage.customDomain: ${write.customDomain} is already taken by another page`,
      ...externalIdTaken("statusPage", "status page of this workspace", write.externalId),
    },
    run,
  );

/** The Prisma calls a page's components and groups are read and written by, alike for both tables. */
interface ChildTable<Row> {
  create(args: { data: object }): Promise<Row>;
  findFirst(args: { where: { id: string; pageId: string } }): Promise<Row | null>;
  findMany(args: { where: { pageId: string }; orderBy: object[]; take: number; skip: number }): Promise<Row[]>;
  count(args: { where: { pageId: string } }): Promise<number>;
  updateMany(args: { where: { id: string; pageId: string }; data: object }): Promise<{ count: number }>;
  deleteMany(args: { where: { id: string; pageId: string } }): Promise<{ count: number }>;
}

interface ChildSpec<Row, View, Write> {
  toView: (row: Row) => View;
  columns: (write: Partial<Write>) => object;
  orderBy: readonly object[];
  /** Runs a write, turning what the database refuses (a taken external id, a reference gone) into the API's answer. */
  guard: <T>(write: Partial<Write>, run: () => Promise<T>) => Promise<T>;
}

/** A page's components or groups: each found, listed, written and deleted by its page and id. */
export type PageChildren<View, Write> = ReturnType<typeof pageChildren<unknown, View, Write>>;

function pageChildren<Row, View, Write>(table: ChildTable<Row>, spec: ChildSpec<Row, View, Write>) {
  const find = async (pageId: string, id: string): Promise<View | null> => {
    const row = await table.findFirst({ where: { id, pageId } });
    return row && spec.toView(row);
  };
  return {
    find,
    create: async (pageId: string, write: Write): Promise<View> =>
      spec.toView(await spec.guard(write, () => table.create({ data: { pageId, ...spec.columns(write) } }))),
    async list(pageId: string, limit: number, offset: number): Promise<Listed<View>> {
      const [rows, total] = await Promise.all([
        table.findMany({ where: { pageId }, orderBy: [...spec.orderBy], take: limit, skip: offset }),
        table.count({ where: { pageId } }),
      ]);
      return { records: rows.map(spec.toView), total };
    },
    /** Writes only the changed columns, so concurrent updates of other fields are kept. Null when it is gone. */
    async update(pageId: string, id: string, write: Partial<Write>): Promise<View | null> {
      await spec.guard(write, () => table.updateMany({ where: { id, pageId }, data: spec.columns(write) }));
      return find(pageId, id);
    },
    delete: async (pageId: string, id: string): Promise<boolean> => (await table.deleteMany({ where: { id, pageId } })).count > 0,
  };
}

/**
 * Status pages (status_pages), their components and component groups. Deleting
 * a page removes its components and groups, deleting a group ungroups its
 * components, and deleting a monitor removes its components: all by the
 * database's cascades.
 */
export class StatusPageRepository {
  readonly components: PageChildren<ComponentView, ComponentWrite>;
  readonly groups: PageChildren<GroupView, GroupWrite>;
  readonly incidents: StatusPageIncidentRepository;
  readonly subscribers: SubscriberDirectory;

  constructor(readonly prisma: PrismaClient) {
    this.incidents = new StatusPageIncidentRepository(prisma);
    this.subscribers = new SubscriberDirectory(prisma);
    this.components = pageChildren(prisma.statusPageComponent as unknown as ChildTable<ComponentRow>, {
      toView: toComponent,
      columns: componentColumns,
      orderBy: displayOrder,
      guard: (write, run) => referencesKept(write, () => refusingDuplicates(externalIdTaken("component", "component of this page", write.externalId), run)),
    });
    this.groups = pageChildren(prisma.statusPageComponentGroup as unknown as ChildTable<GroupView>, {
      toView: (row) => row,
      columns: (write) => write,
      orderBy: creationOrder,
      guard: (write, run) => refusingDuplicates(externalIdTaken("group", "group of this page", write.externalId), run),
    });
  }

  async createPage(workspaceId: string, id: string, write: PageWrite): Promise<PageRecord> {
    return toPage(await uniquePage(write, () => this.prisma.statusPage.create({ data: { id, workspaceId, ...write, customDomain: write.customDomain || null } })));
  }

  async findPage(workspaceId: string, id: string): Promise<PageRecord | null> {
    const row = await this.prisma.statusPage.findFirst({ where: { id, workspaceId } });
    return row && toPage(row);
  }

  /** One page of the list in creation order (then id), and the workspace's total. */
  async listPages(workspaceId: string, limit: number, offset: number): Promise<Listed<PageRecord>> {
    const [rows, total] = await Promise.all([
      this.prisma.statusPage.findMany({ where: { workspaceId }, orderBy: [...creationOrder], take: limit, skip: offset }),
      this.prisma.statusPage.count({ where: { workspaceId } }),
    ]);
    return { records: rows.map(toPage), total };
  }

  /**
   * Writes the changed columns only if the page has not changed since
   * `expected` was read (optimistic concurrency, as for monitors), moving its
   * access version in the same statement when who may read it changes.
   * Returns null on a conflict.
   */
  async updatePage(expected: PageRecord, write: Partial<PageWrite>, accessChanged: boolean): Promise<PageRecord | null> {
    const { count } = await uniquePage(write, () =>
      this.prisma.statusPage.updateMany({
        where: { id: expected.id, workspaceId: expected.workspaceId, updatedAt: expected.updatedAt },
        data: { ...pageColumns(write), ...(accessChanged ? { accessVersion: { increment: 1 } } : {}) },
      }),
    );
    return count === 0 ? null : this.findPage(expected.workspaceId, expected.id);
  }

  /** Sets `published`; unchanged (and untouched) when it already has that value. Null when there is no such page. */
  async setPublished(workspaceId: string, id: string, published: boolean): Promise<PageRecord | null> {
    await this.prisma.statusPage.updateMany({ where: { id, workspaceId, published: !published }, data: { published } });
    return this.findPage(workspaceId, id);
  }

  async deletePage(workspaceId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.statusPage.deleteMany({ where: { id, workspaceId } });
    return count > 0;
  }

  async monitorInWorkspace(workspaceId: string, monitorId: string): Promise<boolean> {
    return (await this.prisma.monitor.count({ where: { id: monitorId, workspaceId } })) > 0;
  }
}
