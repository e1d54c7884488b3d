import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { v7 as uuidv7 } from "uuid";
import {
  ValidationError,
  checkCustomDomain,
  checkPageAccess,
  parseExternalId,
  parsePage,
  parseStatusPage,
  secretFingerprint,
  parseStatusPageChanges,
  statusPageChanges,
  statusPageInputFromMessage,
  statusPageToMessage,
  type PageFields,
  parseId,
  parseReportMonth,
} from "@vigil/domain";
import { StatusPageSchema, type StatusPageService } from "@vigil/proto/status-page";
import { actorOf } from "../auth/context";
import { notFound } from "../errors";
import type { Changes } from "../changes/changes";
import { componentMethods, groupMethods } from "./components-service";
import type { FindPage } from "./ids";
import { incidentMethods } from "./incidents/service";
import { statusPageReport } from "../slo/report";
import type { SubscriberNoticeSink } from "./subscribers/notices";
import { subscriberMethods } from "./subscribers/service";
import { hashPassword, verifyPassword } from "../auth/password";
import type { PageRecord, PageWrite, StatusPageRepository } from "./repository";

/** Attempts at an update that keeps losing to concurrent writers before giving up. */
const UPDATE_ATTEMPTS = 5;

/** Whether two lists of domains let in the same addresses (order and repeats aside). */
function sameDomains(a: readonly string[], b: readonly string[]): boolean {
  const [x, y] = [new Set(a), new Set(b)];
  return x.size === y.size && [...x].every((domain) => y.has(domain));
}

/**
 * The password columns after an update that sends `password`: cleared by an
 * empty one, kept (hash and sessions alike) when the same password is sent
 * again, as a client resending its whole configuration does, else hashed anew.
 * The fingerprint is computed every time, so that a page whose password was
 * set before fingerprints were kept gets one when it is sent again.
 */
async function passwordColumns(page: PageRecord, password: string): Promise<Pick<PageWrite, "passwordHash" | "passwordFingerprint">> {
  if (password === "") return { passwordHash: null, passwordFingerprint: null };
  const current = page.passwordHash;
  const kept = current !== null && (await verifyPassword(password, current));
  return { passwordHash: kept ? current : await hashPassword(password), passwordFingerprint: secretFingerprint(page.id, password) };
}

/** `reservedDomains`: the names no page may take as its custom domain (reservedDomainsOf). */
export function statusPageService(
  repo: StatusPageRepository,
  pageChanges: Changes,
  reservedDomains: ReadonlySet<string>,
  notices: SubscriberNoticeSink | null = null,
): ServiceImpl<typeof StatusPageService> {
  const workspaceOf = (ctx: HandlerContext) => actorOf(ctx).workspace.id;

  const findPage: FindPage = async (ctx, id, field = "id") => {
    const record = await repo.findPage(workspaceOf(ctx), parseId(id, field));
    if (!record) throw notFound(`status page ${id}`);
    return record;
  };

  /** Answers a page after a write, telling the public pages it changed. */
  const changed = (record: PageRecord) => {
    pageChanges.publish(record.id);
    return { statusPage: statusPageToMessage(record) };
  };

  async function setPublished(ctx: HandlerContext, id: string, published: boolean) {
    const record = await repo.setPublished(workspaceOf(ctx), parseId(id), published);
    if (!record) throw notFound(`status page ${id}`);
    return changed(record);
  }

  return {
    async createStatusPage(req, ctx) {
      if (!req.statusPage) throw ValidationError.of("statusPage", "is required");
      const { password, ...fields } = parseStatusPage(statusPageInputFromMessage(req.statusPage));
      const externalId = parseExternalId(req.statusPage.externalId, "statusPage.externalId");
      checkCustomDomain(fields.customDomain, reservedDomains);
      checkPageAccess({ ...fields, hasPassword: password !== "" });
      // The id is made here because the password's fingerprint is salted with it.
      const id = uuidv7();
      const passwordHash = password === "" ? null : await hashPassword(password);
      const passwordFingerprint = password === "" ? null : secretFingerprint(id, password);
      return changed(await repo.createPage(workspaceOf(ctx), id, { ...fields, passwordHash, passwordFingerprint, externalId }));
    },

    async getStatusPageReport(req, ctx) {
      const now = new Date();
      const month = parseReportMonth(req.month, now);
      const page = await findPage(ctx, req.id);
      const components = await repo.prisma.statusPageComponent.findMany({
        where: { pageId: page.id, type: "monitor", monitorId: { not: null } },
        orderBy: [{ position: "asc" }, { createdAt: "asc" }],
        select: { id: true, name: true, monitorId: true, monitor: { select: { name: true } } },
      });
      const named = components.map((c) => ({ id: c.id, name: c.name || c.monitor!.name, monitorId: c.monitorId! }));
      return statusPageReport(repo.prisma, { id: page.id, name: page.title }, named, month, now);
    },

    async getStatusPage(req, ctx) {
      return { statusPage: statusPageToMessage(await findPage(ctx, req.id)) };
    },

    async listStatusPages(req, ctx) {
      const page = parsePage({ limit: req.limit, offset: req.offset });
      const { records, total } = await repo.listPages(workspaceOf(ctx), page.limit, page.offset);
      return { statusPages: records.map(statusPageToMessage), totalSize: total };
    },

    async updateStatusPage(req, ctx) {
      const { externalId, ...raw } = statusPageChanges(req.statusPage ?? create(StatusPageSchema), req.updateMask);
      const { password, ...fields }: Partial<PageFields> = parseStatusPageChanges(raw as Record<keyof PageFields, unknown>);
      if (fields.customDomain !== undefined) checkCustomDomain(fields.customDomain, reservedDomains);
      const externalIdWrite = externalId === undefined ? {} : { externalId: parseExternalId(externalId as string, "statusPage.externalId") };
      for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
        const current = await findPage(ctx, req.id);
        const passwordWrite = password === undefined ? {} : await passwordColumns(current, password);
        const { passwordHash } = { ...current, ...passwordWrite };
        const access = { accessType: fields.accessType ?? current.accessType, authEmailDomains: fields.authEmailDomains ?? current.authEmailDomains };
        checkPageAccess({ ...access, hasPassword: passwordHash !== null });
        const write: Partial<PageWrite> = { ...fields, ...passwordWrite, ...externalIdWrite };
        if (Object.keys(write).length === 0) return { statusPage: statusPageToMessage(current) };

        const accessChanged =
          access.accessType !== current.accessType || passwordHash !== current.passwordHash || !sameDomains(access.authEmailDomains, current.authEmailDomains);
        const saved = await repo.updatePage(current, write, accessChanged);
        if (saved) return changed(saved);
      }
      throw new ConnectError("the status page kept changing while this update was applied; try again", Code.Aborted);
    },

    async deleteStatusPage(req, ctx) {
      if (!(await repo.deletePage(workspaceOf(ctx), parseId(req.id)))) throw notFound(`status page ${req.id}`);
      pageChanges.publish(req.id);
      return { success: true };
    },

    publishStatusPage: (req, ctx) => setPublished(ctx, req.id, true),
    unpublishStatusPage: (req, ctx) => setPublished(ctx, req.id, false),

    ...componentMethods(repo, findPage, pageChanges),
    ...groupMethods(repo, findPage, pageChanges),
    ...incidentMethods(repo.incidents, findPage, pageChanges, notices),
    ...subscriberMethods(repo.subscribers, findPage),
  };
}
