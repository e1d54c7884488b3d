export { toInput, fromOutput } from "./convert.js";
export { locateField, type PathStep } from "./paths.js";
export { planChange, type PlannedChange } from "./plan.js";
export { schemaMessage } from "./proto-schema.js";
export * from "./spec.js";
