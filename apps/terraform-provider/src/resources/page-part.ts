import type { TfObject } from "../values/index.js";
import type { CallContext, ResourceDefinition } from "./definition.js";
import { ProviderError } from "../diagnostics.js";
import { answered, deleteIfPresent, unlessMissing } from "./common.js";

/** `<page_id>/<child_id>`, the import id of a page's components and groups. */
function parseChildImportId(id: string, child: string): { page_id: string; id: string } {
  const parts = id.split("/");
  if (parts.length !== 2 || parts.some((part) => part.trim() === "")) {
    throw new ProviderError("Invalid import id", `expected <page_id>/<${child}_id>, got "${id}"`);
  }
  return { page_id: parts[0]!, id: parts[1]! };
}

type Call = (request: object, options: { signal: AbortSignal }) => Promise<Record<string, unknown>>;

/**
 * The calls of a status page's part (a component or a group) as a resource: it is addressed by its
 * page and id, written with the fields `body` makes of the plan, and imported as `<page_id>/<id>`.
 */
export function pagePart<Message>(part: {
  /** The field of requests and answers that holds it (`component`), and the message the API's methods are named after. */
  field: string;
  message: string;
  /** How errors name it. */
  what: string;
  body: (planned: TfObject) => object;
  /** The fields an update writes: all but page_id and type, which replace it when they change. */
  updateMask: string[];
  stateOf: (message: Message) => TfObject;
}): Pick<ResourceDefinition, "create" | "read" | "update" | "delete" | "importState"> {
  const call = (ctx: CallContext, verb: string, request: object) =>
    (ctx.client.statusPages as unknown as Record<string, Call>)[`${verb}${part.message}`]!(request, { signal: ctx.signal });
  const state = (answer: Record<string, unknown>) => part.stateOf(answered(answer[part.field] as Message | undefined, part.what));
  const key = (value: TfObject) => ({ pageId: String(value.page_id), id: String(value.id) });
  return {
    create: async (ctx, planned) => state(await call(ctx, "create", { [part.field]: { ...part.body(planned), pageId: String(planned.page_id) } })),
    async read(ctx, current) {
      const answer = await unlessMissing(call(ctx, "get", key(current)));
      return answer ? state(answer) : null;
    },
    update: async (ctx, planned, prior) =>
      state(await call(ctx, "update", { ...key(prior), [part.field]: part.body(planned), updateMask: { paths: part.updateMask } })),
    delete: (ctx, current) => deleteIfPresent(call(ctx, "delete", key(current))),
    importState: (id) => parseChildImportId(id, part.field),
  };
}
