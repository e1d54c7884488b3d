import { isObject, isUnknown, type TfValue } from "../values/index.js";
import { fieldOf, type AttributeSpec, type BlockSpec, type NestedBlockSpec } from "./spec.js";

/** One step of a Terraform attribute path: an attribute by name or a list element by index. */
export type PathStep = { attribute: string } | { index: number };

/** `openTelemetry.headers[0].key` -> ["openTelemetry", "headers", 0, "key"] */
function segments(field: string): (string | number)[] {
  return field
    .split(/\.|(?=\[)/)
    .filter(Boolean)
    .map((part) => (part.startsWith("[") ? Number(part.slice(1, -1)) : part));
}

/** Whether a value is unknown or holds one: the element of a set a rule is about cannot be told apart then. */
const holdsUnknown = (value: TfValue): boolean =>
  isUnknown(value) || (Array.isArray(value) ? value.some(holdsUnknown) : isObject(value) && Object.values(value).some(holdsUnknown));

export interface AttributeLocation {
  steps: PathStep[];
  /** Whether the configuration's value on the way is unknown: no rule can be checked on it yet. */
  unknown: boolean;
}

/**
 * Where a field the domain names (camelCase, relative to the resource) is in
 * the configuration. The path stops at a set (Terraform addresses set elements
 * by value, not index) and at the last field the schema knows.
 */
export function locateField(block: BlockSpec, field: string, config: TfValue): AttributeLocation {
  const steps: PathStep[] = [];
  let current: BlockSpec | undefined = block;
  let value: TfValue = config;
  let unknown = isUnknown(value);
  let indexable = false;
  for (const segment of segments(field)) {
    if (typeof segment === "number") {
      if (!indexable) break;
      steps.push({ index: segment });
      value = Array.isArray(value) ? (value[segment] ?? null) : null;
      indexable = false;
    } else {
      if (!current) break;
      const attribute: [string, AttributeSpec] | undefined = Object.entries(current.attributes).find(([name, spec]) => fieldOf(name, spec) === segment);
      const nested: [string, NestedBlockSpec] | undefined = Object.entries(current.blocks ?? {}).find(([name, spec]) => fieldOf(name, spec) === segment);
      const name = attribute?.[0] ?? nested?.[0];
      if (!name) break;
      steps.push({ attribute: name });
      value = isObject(value) ? (value[name] ?? null) : null;
      const type = attribute?.[1].type;
      indexable = nested ? nested[1].nesting === "list" : Array.isArray(type) && (type[0] === "list" || type[0] === "map");
      current = nested?.[1].block;
      if (nested?.[1].nesting === "set" || (Array.isArray(type) && type[0] === "set")) {
        unknown ||= holdsUnknown(value);
        break;
      }
    }
    unknown ||= isUnknown(value);
  }
  return { steps, unknown };
}
