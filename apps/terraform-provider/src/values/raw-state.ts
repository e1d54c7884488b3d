import { parse } from "lossless-json";
import { fromRaw } from "./dynamic-value.js";
import type { CtyType, TfValue } from "./types.js";

/**
 * Stored state as Terraform hands it to UpgradeResourceState (RawState.json),
 * parsed without rounding any number: a large integer that came back changed
 * would show as a change in every plan.
 */
export function decodeStateJson(bytes: Uint8Array, type: CtyType): TfValue {
  if (bytes.length === 0) return null;
  return fromRaw(parse(new TextDecoder().decode(bytes)), type);
}
