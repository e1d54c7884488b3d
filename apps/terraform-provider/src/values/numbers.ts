import { LosslessNumber, isLosslessNumber } from "lossless-json";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INTEGER = /^-?\d+$/;

/**
 * A number as Terraform sent it in msgpack: a JS number for floats and safe
 * integers, LosslessNumber for int64 beyond 2^53 and for the decimal strings
 * Terraform uses for numbers no float64 holds exactly.
 */
export function numberFromWire(raw: unknown): number | LosslessNumber {
  if (typeof raw === "number") return raw;
  if (typeof raw === "bigint") return Number.isSafeInteger(Number(raw)) ? Number(raw) : new LosslessNumber(raw.toString());
  if (typeof raw === "string") return new LosslessNumber(raw);
  if (isLosslessNumber(raw)) return raw;
  throw new TypeError(`expected a number, got ${typeof raw}`);
}

/**
 * A number as it goes back to Terraform: integers in int64 as msgpack
 * integers, anything else held as text as a decimal string (Terraform parses
 * it at full precision), floats as float64.
 */
export function numberToWire(value: number | LosslessNumber): number | bigint | string {
  if (typeof value === "number") return value;
  if (INTEGER.test(value.value)) {
    const integer = BigInt(value.value);
    if (integer >= INT64_MIN && integer <= INT64_MAX) return integer;
  }
  return value.value;
}

/** Whether two numbers are the same value, whatever their representation. */
export function numbersEqual(a: number | LosslessNumber, b: number | LosslessNumber): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b;
  return canonical(a) === canonical(b);
}

function canonical(value: number | LosslessNumber): string {
  const text = typeof value === "number" ? String(value) : value.value;
  if (INTEGER.test(text)) return BigInt(text).toString();
  const parsed = Number(text);
  // Decimals that are not integers compare by their float value: the API works in float64 anyway.
  return Number.isFinite(parsed) ? String(parsed) : text;
}

export const isNumber = (value: unknown): value is number | LosslessNumber => typeof value === "number" || isLosslessNumber(value);
