import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  ValidationError,
  checkPageAccess,
  parsePage,
  parseStatusPage,
  parseStatusPageChanges,
  statusPageChanges,
  statusPageInputFromMessage,
  statusPageToMessage,
  type PageFields,
} from "@vigil/domain";
import { StatusPageSchema, type StatusPageService } from "@vigil/proto/status-page";
import { actorOf } from "../auth/context";
import { notFound } from "../errors";
import type { PageChanges } from "./changes";
import { componentMethods, groupMethods } from "./components-service";
import { requireId, type FindPage } from "./ids";
import { hashPassword, verifyPassword } from "./password";
import type { PageRecord, PageWrite, StatusPageRepository } from "./repository";

/** Attempts at an update that keeps losing to concurrent writers before giving up. */
const UPDATE_ATTEMPTS = 5;

/** Whether two lists of domains let in the same addresses (order and repeats aside). */
function sameDomains(a: readonly string[], b: readonly string[]): boolean {
  const [x, y] = [new Set(a), new Set(b)];
  return x.size === y.size && [...x].every((domain) => y.has(domain));
}

/**
 * The password column after an update that sends `password`: cleared by an
 * empty one, kept (hash and sessions alike) when the same password is sent
 * again, as a client resending its whole configuration does, else hashed anew.
 */
async function passwordHashOf(password: string, current: string | null): Promise<string | null> {
  if (password === "") return null;
  if (current !== null && (await verifyPassword(password, current))) return current;
  return hashPassword(password);
}

export function statusPageService(repo: StatusPageRepository, pageChanges: PageChanges): ServiceImpl<typeof StatusPageService> {
  const workspaceOf = (ctx: HandlerContext) => actorOf(ctx).workspace.id;

  const findPage: FindPage = async (ctx, id, field = "id") => {
    const record = await repo.findPage(workspaceOf(ctx), requireId(id, field));
    if (!record) throw notFound(`status page ${id}`);
    return record;
  };

  /** Answers a page after a write, telling the public pages it changed. */
  const changed = (record: PageRecord) => {
    pageChanges.publish(record.id);
    return { statusPage: statusPageToMessage(record) };
  };

  async function setPublished(ctx: HandlerContext, id: string, published: boolean) {
    const record = await repo.setPublished(workspaceOf(ctx), requireId(id), published);
    if (!record) throw notFound(`status page ${id}`);
    return changed(record);
  }

  return {
    async createStatusPage(req, ctx) {
      if (!req.statusPage) throw ValidationError.of("statusPage", "is required");
      const { password, ...fields } = parseStatusPage(statusPageInputFromMessage(req.statusPage));
      checkPageAccess({ ...fields, hasPassword: password !== "" });
      const passwordHash = password === "" ? null : await hashPassword(password);
      return changed(await repo.createPage(workspaceOf(ctx), { ...fields, passwordHash }));
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
      const raw = statusPageChanges(req.statusPage ?? create(StatusPageSchema), req.updateMask);
      const { password, ...fields }: Partial<PageFields> = parseStatusPageChanges(raw as Record<keyof PageFields, unknown>);
      for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
        const current = await findPage(ctx, req.id);
        const passwordHash = password === undefined ? current.passwordHash : await passwordHashOf(password, current.passwordHash);
        const access = { accessType: fields.accessType ?? current.accessType, authEmailDomains: fields.authEmailDomains ?? current.authEmailDomains };
        checkPageAccess({ ...access, hasPassword: passwordHash !== null });
        const write: Partial<PageWrite> = { ...fields, ...(password === undefined ? {} : { passwordHash }) };
        if (Object.keys(write).length === 0) return { statusPage: statusPageToMessage(current) };

        const accessChanged =
          access.accessType !== current.accessType || passwordHash !== current.passwordHash || !sameDomains(access.authEmailDomains, current.authEmailDomains);
        const saved = await repo.updatePage(current, write, accessChanged);
        if (saved) return changed(saved);
      }
      throw new ConnectError("the status page kept changing while this update was applied; try again", Code.Aborted);
    },

    async deleteStatusPage(req, ctx) {
      if (!(await repo.deletePage(workspaceOf(ctx), requireId(req.id)))) throw notFound(`status page ${req.id}`);
      pageChanges.publish(req.id);
      return { success: true };
    },

    publishStatusPage: (req, ctx) => setPublished(ctx, req.id, true),
    unpublishStatusPage: (req, ctx) => setPublished(ctx, req.id, false),

    ...componentMethods(repo, findPage, pageChanges),
    ...groupMethods(repo, findPage, pageChanges),
  };
}
