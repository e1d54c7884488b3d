import { UNKNOWN, isObject, valuesEqual, type TfObject, type TfValue } from "../values/index.js";
import { objectType, type BlockSpec, type NestedBlockSpec } from "./spec.js";

const asObject = (value: TfValue | undefined): TfObject | null => (value !== undefined && isObject(value) ? value : null);

function planNested(nested: NestedBlockSpec, proposed: TfValue, config: TfValue, prior: TfValue): TfValue {
  if (nested.nesting === "single") {
    const proposedObject = asObject(proposed);
    const configObject = asObject(config);
    return proposedObject && configObject ? planBlock(nested.block, proposedObject, configObject, asObject(prior)) : proposed;
  }
  if (!Array.isArray(proposed) || !Array.isArray(config)) return proposed;
  const priorItems = nested.nesting === "list" && Array.isArray(prior) ? prior : [];
  return proposed.map((item, index) => {
    const proposedObject = asObject(item);
    const configObject = asObject(config[index]);
    return proposedObject && configObject ? planBlock(nested.block, proposedObject, configObject, asObject(priorItems[index])) : item;
  });
}

/**
 * The planned value of one block from Terraform's proposed new state: defaults
 * where the configuration leaves an attribute out, and "known after apply" for
 * what the server computes on create.
 */
function planBlock(block: BlockSpec, proposed: TfObject, config: TfObject, prior: TfObject | null): TfObject {
  const planned: TfObject = {};
  for (const [name, spec] of Object.entries(block.attributes)) {
    const configured = config[name] ?? null;
    if (configured === null && spec.default !== undefined) planned[name] = spec.default;
    else if (configured === null && spec.computed && prior === null) planned[name] = UNKNOWN;
    else planned[name] = proposed[name] ?? null;
  }
  for (const [name, nested] of Object.entries(block.blocks ?? {})) {
    planned[name] = planNested(nested, proposed[name] ?? null, config[name] ?? null, prior?.[name] ?? null);
  }
  return planned;
}

export interface PlannedChange {
  planned: TfObject;
  /** Top-level attributes whose change replaces the object. */
  requiresReplace: string[];
}

/** PlanResourceChange for a create (prior null) or an update. */
export function planChange(block: BlockSpec, proposed: TfObject, config: TfObject, prior: TfObject | null): PlannedChange {
  const planned = planBlock(block, proposed, config, prior);
  if (prior === null) return { planned, requiresReplace: [] };
  if (valuesEqual(planned, prior, objectType(block))) return { planned: prior, requiresReplace: [] };
  const changed = (name: string) => !valuesEqual(planned[name] ?? null, prior[name] ?? null, block.attributes[name]!.type);
  for (const [name, spec] of Object.entries(block.attributes)) {
    if (spec.volatile || (spec.derived && (config[name] ?? null) === null)) planned[name] = UNKNOWN;
  }
  const requiresReplace = Object.entries(block.attributes)
    .filter(([name, spec]) => spec.forceNew && changed(name))
    .map(([name]) => name);
  return { planned, requiresReplace };
}
