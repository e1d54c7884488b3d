import type { CtyType, TfValue } from "../values/index.js";

/** One attribute of a resource, data source or block: how Terraform treats it and how the plan fills it in. */
export interface AttributeSpec {
  type: CtyType;
  description: string;
  required?: boolean;
  optional?: boolean;
  /** Set by the provider when the configuration leaves it out. */
  computed?: boolean;
  sensitive?: boolean;
  /** A change replaces the object (RequiresReplace in the plan). */
  forceNew?: boolean;
  /** The value the plan shows when the configuration leaves the attribute out; see `withDefault`. */
  default?: TfValue;
  /** Computed by the server and possibly different after any update (a monitor's status): unknown in an update's plan. */
  volatile?: boolean;
  /**
   * Optional, and when left out derived by the server from the other attributes (a heartbeat's period_seconds, null
   * once it has a cron expression): unknown in the plan of an update that leaves it out, not the prior value.
   */
  derived?: boolean;
  /** The API's (domain's) field name when it is not the attribute's name in camelCase. */
  field?: string;
}

export interface NestedBlockSpec {
  /** single: one optional block (null when absent); list: ordered blocks; set: unordered ones. */
  nesting: "single" | "list" | "set";
  description: string;
  block: BlockSpec;
  maxItems?: number;
  field?: string;
}

export interface BlockSpec {
  attributes: Record<string, AttributeSpec>;
  blocks?: Record<string, NestedBlockSpec>;
}

export const required = (type: CtyType, description: string, extra: Partial<AttributeSpec> = {}): AttributeSpec => ({
  type,
  description,
  required: true,
  ...extra,
});

export const optional = (type: CtyType, description: string, extra: Partial<AttributeSpec> = {}): AttributeSpec => ({
  type,
  description,
  optional: true,
  ...extra,
});

/** Read-only: only the server sets it. */
export const computed = (type: CtyType, description: string, extra: Partial<AttributeSpec> = {}): AttributeSpec => ({
  type,
  description,
  computed: true,
  ...extra,
});

/**
 * Optional with the contract's default shown in the plan; Computed too, as
 * Terraform requires of an attribute the provider fills in, so that neither a
 * plan after apply nor one after import shows a change.
 */
export const withDefault = (type: CtyType, description: string, value: TfValue, extra: Partial<AttributeSpec> = {}): AttributeSpec => ({
  type,
  description,
  optional: true,
  computed: true,
  default: value,
  ...extra,
});

/** Optional, and filled in by the server when left out (degraded_at): the plan says "known after apply" on create. */
export const optionalComputed = (type: CtyType, description: string, extra: Partial<AttributeSpec> = {}): AttributeSpec => ({
  type,
  description,
  optional: true,
  computed: true,
  ...extra,
});

/** The cty object type of a block's values: its attributes and its nested blocks. */
export function objectType(block: BlockSpec): CtyType {
  const attributes: Record<string, CtyType> = {};
  for (const [name, attribute] of Object.entries(block.attributes)) attributes[name] = attribute.type;
  for (const [name, nested] of Object.entries(block.blocks ?? {})) {
    const inner = objectType(nested.block);
    attributes[name] = nested.nesting === "single" ? inner : [nested.nesting, inner];
  }
  return ["object", attributes];
}

export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
export const fieldOf = (name: string, spec: { field?: string }) => spec.field ?? camelCase(name);
