import type { VigilClient } from "@vigil/client";
import {
  COMPONENT_TYPES,
  LIMITS,
  checkComponentMonitor,
  componentInputFromMessage,
  componentSchema,
  parseComponent,
  parseComponentChanges,
  type ComponentFields,
} from "@vigil/domain";
import { domainViolations } from "../diagnostics.js";
import { computed, fromOutput, required, toInput, withDefault, type BlockSpec } from "../schema/index.js";
import type { TfObject, TfValue } from "../values/index.js";
import type { ResourceDefinition } from "./definition.js";
import { timestampAttributes, timestampText } from "./common.js";
import { pagePart } from "./page-part.js";

type ComponentMessage = NonNullable<Awaited<ReturnType<VigilClient["statusPages"]["getStatusPageComponent"]>>["component"]>;

const COMPONENT_FIELDS = Object.keys(componentSchema.shape) as (keyof ComponentFields)[];

const defaultOf = (field: keyof ComponentFields) => componentSchema.shape[field].parse(undefined) as TfValue;

const schema: BlockSpec = {
  attributes: {
    id: computed("string", "The component's id."),
    page_id: required("string", "The owning status page; changing it replaces the component.", { forceNew: true }),
    type: required("string", `${COMPONENT_TYPES.join(" or ")}; changing it replaces the component.`, { forceNew: true }),
    monitor_id: withDefault("string", "The monitor shown, required when type is monitor and empty for static components.", defaultOf("monitorId")),
    name: withDefault("string", `Name, at most ${LIMITS.nameMaxChars} characters; a monitor component without one shows its monitor's name.`, defaultOf("name")),
    description: withDefault("string", `Description, at most ${LIMITS.descriptionMaxChars} characters.`, defaultOf("description")),
    order: withDefault("number", "Display order on the page (ascending).", defaultOf("order")),
    group_id: withDefault("string", "The component group of the same page it belongs to; empty: none.", defaultOf("groupId")),
    group_order: withDefault("number", "Display order within the group (ascending).", defaultOf("groupOrder")),
    ...timestampAttributes("component"),
  },
};

/** The domain's component fields of a value (page_id and the read-only attributes are not among them). */
const componentInput = (value: TfObject): Partial<Record<keyof ComponentFields, unknown>> => {
  const input = toInput(schema, value);
  return Object.fromEntries(COMPONENT_FIELDS.filter((field) => field in input).map((field) => [field, input[field]]));
};

export const statusPageComponent: ResourceDefinition = {
  typeName: "service_status_page_component",
  description: "A line of a status page: a monitor's state, or a static line that is always operational.",
  schema,
  validate: (config) =>
    domainViolations(() => {
      const component = parseComponentChanges(componentInput(config) as Record<keyof ComponentFields, unknown>);
      // The rule between type and monitor_id, once type is known (an unknown monitor_id drops its violation).
      if (component.type) checkComponentMonitor({ type: component.type, monitorId: component.monitorId ?? "" });
    }),
  ...pagePart({
    field: "component",
    message: "StatusPageComponent",
    what: "component",
    body: (planned) => parseComponent(componentInput(planned)),
    updateMask: COMPONENT_FIELDS.filter((field) => field !== "type"),
    stateOf: (component: ComponentMessage) =>
      fromOutput(schema, {
        ...parseComponent(componentInputFromMessage(component)),
        id: component.id,
        pageId: component.pageId,
        createdAt: timestampText(component.createdAt),
        updatedAt: timestampText(component.updatedAt),
      }),
  }),
};
