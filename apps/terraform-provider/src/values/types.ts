import type { LosslessNumber } from "lossless-json";

/**
 * A cty type, in the JSON form Terraform reads from a schema attribute's `type`
 * bytes: "string", ["list","string"], ["object",{ "a": "number" }], ...
 */
export type CtyType =
  | "string"
  | "number"
  | "bool"
  | readonly ["list" | "set" | "map", CtyType]
  | readonly ["object", { readonly [name: string]: CtyType }];

/** A value Terraform has not decided yet ("known after apply"). */
export const UNKNOWN: unique symbol = Symbol("unknown");
export type Unknown = typeof UNKNOWN;

/**
 * A Terraform value. Numbers are JS numbers when they are floats or safe
 * integers, and LosslessNumber (its decimal text) otherwise, so that large
 * integers and decimals go back to Terraform exactly as they came.
 */
export type TfValue = null | Unknown | string | boolean | number | LosslessNumber | TfValue[] | TfObject;
export interface TfObject {
  [name: string]: TfValue;
}

export const isUnknown = (value: unknown): value is Unknown => value === UNKNOWN;

export function isObject(value: TfValue): value is TfObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && value.constructor === Object;
}

/** The cty type's JSON encoding, as GetProviderSchema carries it. */
export function encodeType(type: CtyType): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(type));
}
