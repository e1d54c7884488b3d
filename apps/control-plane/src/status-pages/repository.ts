import { Code, ConnectError } from "@connectrpc/connect";
import { Prisma, type PrismaClient } from "@vigil/db";
import { componentReferenceViolations, throwViolations, type AccessType, type ComponentType, type ComponentView, type GroupView, type PageFields, type StatusPageView } from "@vigil/domain";
import { externalIdTaken, refusingDuplicates } from "../duplicates";

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

/** Runs a write of a component's external id, which is unique within its page. */
const uniqueComponent = <T>(externalId: string | null | undefined, run: () => Promise<T>) =>
  refusingDuplicates(externalIdTaken("component", "component of this page", externalId), run);

/** Runs a write of a group's external id, which is unique within its page. */
const uniqueGroup = <T>(externalId: string | null | undefined, run: () => Promise<T>) =>
  refusingDuplicates(externalIdTaken("group", "group of this page", externalId), run);

/**
 * Status pages (status_pages), their components and component groups. Deleting
 * a page removes its components and groups, deleting a group ungroups its
 * components, and deleting a monitor removes its components: all by the
 * database's cascades.
 */
export class StatusPageRepository {
  constructor(private readonly prisma: PrismaClient) {}

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

  // ---- components ----

  async createComponent(pageId: string, { type, name, description, groupOrder, externalId, ...references }: ComponentWrite): Promise<ComponentView> {
    const data = { pageId, type, name, description, groupOrder, externalId, ...componentColumns(references) };
    const create = () => this.prisma.statusPageComponent.create({ data });
    return toComponent(await referencesKept(references, () => uniqueComponent(externalId, create)));
  }

  async findComponent(pageId: string, id: string): Promise<ComponentView | null> {
    const row = await this.prisma.statusPageComponent.findFirst({ where: { id, pageId } });
    return row && toComponent(row);
  }

  async listComponents(pageId: string, limit: number, offset: number): Promise<Listed<ComponentView>> {
    const [rows, total] = await Promise.all([
      this.prisma.statusPageComponent.findMany({ where: { pageId }, orderBy: [...displayOrder], take: limit, skip: offset }),
      this.prisma.statusPageComponent.count({ where: { pageId } }),
    ]);
    return { records: rows.map(toComponent), total };
  }

  /** Writes only the changed columns, so concurrent updates of other fields are kept. Null when the component is gone. */
  async updateComponent(pageId: string, id: string, write: Partial<ComponentWrite>): Promise<ComponentView | null> {
    const update = () => this.prisma.statusPageComponent.updateMany({ where: { id, pageId }, data: componentColumns(write) });
    await referencesKept(write, () => uniqueComponent(write.externalId, update));
    return this.findComponent(pageId, id);
  }

  async deleteComponent(pageId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.statusPageComponent.deleteMany({ where: { id, pageId } });
    return count > 0;
  }

  // ---- groups ----

  async createGroup(pageId: string, write: GroupWrite): Promise<GroupView> {
    return uniqueGroup(write.externalId, () => this.prisma.statusPageComponentGroup.create({ data: { pageId, ...write } }));
  }

  findGroup(pageId: string, id: string): Promise<GroupView | null> {
    return this.prisma.statusPageComponentGroup.findFirst({ where: { id, pageId } });
  }

  async listGroups(pageId: string, limit: number, offset: number): Promise<Listed<GroupView>> {
    const [records, total] = await Promise.all([
      this.prisma.statusPageComponentGroup.findMany({ where: { pageId }, orderBy: [...creationOrder], take: limit, skip: offset }),
      this.prisma.statusPageComponentGroup.count({ where: { pageId } }),
    ]);
    return { records, total };
  }

  /** Writes only the changed columns. Null when the group is gone. */
  async updateGroup(pageId: string, id: string, write: Partial<GroupWrite>): Promise<GroupView | null> {
    await uniqueGroup(write.externalId, () => this.prisma.statusPageComponentGroup.updateMany({ where: { id, pageId }, data: write }));
    return this.findGroup(pageId, id);
  }

  async deleteGroup(pageId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.statusPageComponentGroup.deleteMany({ where: { id, pageId } });
    return count > 0;
  }
}
