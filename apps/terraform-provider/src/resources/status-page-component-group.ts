import type { VigilClient } from "@vigil/client";
import { LIMITS, parseGroupName } from "@vigil/domain";
import { domainViolations } from "../diagnostics.js";
import { computed, fromOutput, required, type BlockSpec } from "../schema/index.js";
import { isUnknown } from "../values/index.js";
import type { ResourceDefinition } from "./definition.js";
import { timestampAttributes, timestampText } from "./common.js";
import { pagePart } from "./page-part.js";

type GroupMessage = NonNullable<Awaited<ReturnType<VigilClient["statusPages"]["getStatusPageComponentGroup"]>>["group"]>;

const schema: BlockSpec = {
  attributes: {
    id: computed("string", "The group's id."),
    page_id: required("string", "The owning status page; changing it replaces the group.", { forceNew: true }),
    name: required("string", `Heading of the group, 1 to ${LIMITS.nameMaxChars} characters.`),
    ...timestampAttributes("group"),
  },
};

export const statusPageComponentGroup: ResourceDefinition = {
  typeName: "service_status_page_component_group",
  description: "A heading under which components of a status page are shown together.",
  schema,
  validate: (config) => (isUnknown(config.name) ? [] : domainViolations(() => parseGroupName(config.name))),
  ...pagePart({
    field: "group",
    message: "StatusPageComponentGroup",
    what: "component group",
    body: (planned) => ({ name: parseGroupName(planned.name) }),
    updateMask: ["name"],
    stateOf: (group: GroupMessage) =>
      fromOutput(schema, {
        id: group.id,
        pageId: group.pageId,
        name: group.name ?? "",
        createdAt: timestampText(group.createdAt),
        updatedAt: timestampText(group.updatedAt),
      }),
  }),
};
