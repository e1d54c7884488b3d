import type { VigilClient } from "@vigil/client";
import { LIMITS, parseGroupName } from "@vigil/domain";
import { domainViolations } from "../diagnostics.js";
import { computed, fromOutput, required, type BlockSpec } from "../schema/index.js";
import { isUnknown, type TfObject } from "../values/index.js";
import type { ResourceDefinition } from "./definition.js";
import { answered, deleteIfPresent, parseChildImportId, timestampAttributes, timestampText, unlessMissing } from "./common.js";

type GroupMessage = NonNullable<Awaited<ReturnType<VigilClient["statusPages"]["getStatusPageComponentGroup"]>>["group"]>;

const schema: BlockSpec = {
  attributes: {
    id: computed("string", "The group's id."),
    page_id: required("string", "The owning status page; changing it replaces the group.", { forceNew: true }),
    name: required("string", `Heading of the group, 1 to ${LIMITS.nameMaxChars} characters.`),
    ...timestampAttributes("group"),
  },
};

function stateOf(group: GroupMessage | undefined): TfObject {
  const answer = answered(group, "component group");
  return fromOutput(schema, {
    id: answer.id,
    pageId: answer.pageId,
    name: answer.name ?? "",
    createdAt: timestampText(answer.createdAt),
    updatedAt: timestampText(answer.updatedAt),
  });
}

export const statusPageComponentGroup: ResourceDefinition = {
  typeName: "service_status_page_component_group",
  description: "A heading under which components of a status page are shown together.",
  schema,
  validate: (config) => (isUnknown(config.name) ? [] : domainViolations(() => parseGroupName(config.name))),
  async create(ctx, planned) {
    const request = { group: { pageId: String(planned.page_id), name: parseGroupName(planned.name) } };
    const { group } = await ctx.client.statusPages.createStatusPageComponentGroup(request, { signal: ctx.signal });
    return stateOf(group);
  },
  async read(ctx, state) {
    const answer = await unlessMissing(
      ctx.client.statusPages.getStatusPageComponentGroup({ pageId: String(state.page_id), id: String(state.id) }, { signal: ctx.signal }),
    );
    return answer ? stateOf(answer.group) : null;
  },
  async update(ctx, planned, prior) {
    const request = { pageId: String(prior.page_id), id: String(prior.id), group: { name: parseGroupName(planned.name) }, updateMask: { paths: ["name"] } };
    const { group } = await ctx.client.statusPages.updateStatusPageComponentGroup(request, { signal: ctx.signal });
    return stateOf(group);
  },
  async delete(ctx, state) {
    await deleteIfPresent(ctx.client.statusPages.deleteStatusPageComponentGroup({ pageId: String(state.page_id), id: String(state.id) }, { signal: ctx.signal }));
  },
  importState: (id) => parseChildImportId(id, "group"),
};
