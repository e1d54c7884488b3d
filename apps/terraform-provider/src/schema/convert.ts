import type { LosslessNumber } from "lossless-json";
import { isUnknown, isObject, type CtyType, type TfObject, type TfValue } from "../values/index.js";
import { fieldOf, type BlockSpec, type NestedBlockSpec } from "./spec.js";

/** Absent from the input: left out, so the domain's default applies, or unknown, so no rule is checked on it. */
const ABSENT = undefined;

function valueToInput(value: TfValue, type: CtyType): unknown {
  if (value === null || isUnknown(value)) return ABSENT;
  // The API works in JS numbers; a value beyond them is then reported by the domain's range rules.
  if (type === "number") return typeof value === "number" ? value : Number((value as LosslessNumber).value);
  if (typeof type === "string") return value;
  const [kind, inner] = type;
  if (kind === "list" || kind === "set") return (value as TfValue[]).map((item) => valueToInput(item, inner));
  if (kind === "map") return Object.fromEntries(Object.entries(value as TfObject).map(([key, item]) => [key, valueToInput(item, inner)]));
  return value;
}

function nestedToInput(nested: NestedBlockSpec, value: TfValue): unknown {
  if (value === null || isUnknown(value)) return ABSENT;
  if (nested.nesting === "single") return isObject(value) ? toInput(nested.block, value) : ABSENT;
  return (value as TfValue[]).map((item) => (isObject(item) ? toInput(nested.block, item) : ABSENT));
}

/**
 * A resource's Terraform value as the domain's input object (camelCase
 * fields): null and unknown values are left out, numbers become JS numbers.
 */
export function toInput(block: BlockSpec, value: TfObject): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(block.attributes)) {
    const converted = valueToInput(value[name] ?? null, spec.type);
    if (converted !== ABSENT) input[fieldOf(name, spec)] = converted;
  }
  for (const [name, nested] of Object.entries(block.blocks ?? {})) {
    const converted = nestedToInput(nested, value[name] ?? null);
    if (converted !== ABSENT) input[fieldOf(name, nested)] = converted;
  }
  return input;
}

function valueFromOutput(value: unknown, type: CtyType): TfValue {
  if (value === null || value === undefined) return null;
  if (typeof type === "string") return value as TfValue;
  const [kind, inner] = type;
  if (kind === "list" || kind === "set") return (value as unknown[]).map((item) => valueFromOutput(item, inner));
  if (kind === "map") return Object.fromEntries(Object.entries(value as object).map(([key, item]) => [key, valueFromOutput(item, inner)]));
  return value as TfValue;
}

/**
 * A domain object (camelCase fields) as the resource's Terraform value, every
 * attribute and block present as Terraform requires: a missing attribute is
 * null, a missing single block null, missing list blocks empty.
 */
export function fromOutput(block: BlockSpec, output: Record<string, unknown>): TfObject {
  const value: TfObject = {};
  for (const [name, spec] of Object.entries(block.attributes)) value[name] = valueFromOutput(output[fieldOf(name, spec)], spec.type);
  for (const [name, nested] of Object.entries(block.blocks ?? {})) {
    const item = output[fieldOf(name, nested)];
    if (nested.nesting === "single") value[name] = item ? fromOutput(nested.block, item as Record<string, unknown>) : null;
    else value[name] = ((item as Record<string, unknown>[] | undefined) ?? []).map((entry) => fromOutput(nested.block, entry));
  }
  return value;
}
