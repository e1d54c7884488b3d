import { ExtensionCodec, decode, encode } from "@msgpack/msgpack";
import { isLosslessNumber } from "lossless-json";
import { numberFromWire, numberToWire } from "./numbers.js";
import { UNKNOWN, isObject, isUnknown, type CtyType, type TfObject, type TfValue } from "./types.js";

/** Terraform marks an unknown value with msgpack extension 0, and a refined (partly known) one with 12. */
const UNKNOWN_EXT = 0;
const REFINED_UNKNOWN_EXT = 12;

const extensionCodec = new ExtensionCodec();
extensionCodec.register({
  type: UNKNOWN_EXT,
  encode: (value) => (isUnknown(value) ? new Uint8Array([0]) : null),
  decode: () => UNKNOWN,
});
// The refinements (a known prefix, a range) are only hints: the value is still unknown.
extensionCodec.register({ type: REFINED_UNKNOWN_EXT, encode: () => null, decode: () => UNKNOWN });

/** Reads a DynamicValue's msgpack bytes as a value of `type`. Empty bytes are null. */
export function decodeMsgpack(bytes: Uint8Array, type: CtyType): TfValue {
  if (bytes.length === 0) return null;
  return fromRaw(decode(bytes, { extensionCodec, useBigInt64: true }), type);
}

/** A value of `type` as DynamicValue msgpack bytes. */
export function encodeMsgpack(value: TfValue, type: CtyType): Uint8Array {
  return encode(toRaw(value, type), { extensionCodec, useBigInt64: true, ignoreUndefined: false });
}

/**
 * A decoded msgpack or JSON value read as a value of `type`: numbers kept
 * exactly, every attribute of an object present (absent ones null).
 */
export function fromRaw(raw: unknown, type: CtyType): TfValue {
  if (raw === null || raw === undefined) return null;
  if (isUnknown(raw)) return UNKNOWN;
  if (type === "number") return numberFromWire(raw);
  if (type === "string") return String(raw);
  if (type === "bool") return Boolean(raw);
  const [kind, inner] = type;
  if (kind === "object") {
    const source = raw as Record<string, unknown>;
    return Object.fromEntries(Object.entries(inner).map(([name, attributeType]) => [name, fromRaw(source[name], attributeType)]));
  }
  if (kind === "map") {
    return Object.fromEntries(Object.entries(raw as Record<string, unknown>).map(([key, item]) => [key, fromRaw(item, inner)]));
  }
  return (raw as unknown[]).map((item) => fromRaw(item, inner));
}

function toRaw(value: TfValue, type: CtyType): unknown {
  if (value === null || isUnknown(value)) return value;
  if (type === "number") {
    if (typeof value !== "number" && !isLosslessNumber(value)) throw new TypeError(`expected a number, got ${typeof value}`);
    return numberToWire(value);
  }
  if (typeof type === "string") return value;
  const [kind, inner] = type;
  if (kind === "object") {
    const object = value as TfObject;
    return Object.fromEntries(Object.entries(inner).map(([name, attributeType]) => [name, toRaw(object[name] ?? null, attributeType)]));
  }
  if (kind === "map") {
    if (!isObject(value)) throw new TypeError("expected a map");
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toRaw(item, inner)]));
  }
  return (value as TfValue[]).map((item) => toRaw(item, inner));
}
