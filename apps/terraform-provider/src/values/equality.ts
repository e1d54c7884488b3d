import { isNumber, numbersEqual } from "./numbers.js";
import { isObject, type CtyType, type TfValue } from "./types.js";

/** Whether two values of `type` are equal as Terraform sees them: sets ignore order, numbers their representation. */
export function valuesEqual(a: TfValue, b: TfValue, type: CtyType): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (type === "number") return isNumber(a) && isNumber(b) && numbersEqual(a, b);
  if (typeof type === "string") return false;
  const [kind, inner] = type;
  if (kind === "object") {
    if (!isObject(a) || !isObject(b)) return false;
    return Object.entries(inner).every(([name, attributeType]) => valuesEqual(a[name] ?? null, b[name] ?? null, attributeType));
  }
  if (kind === "map") {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => valuesEqual(a[key] ?? null, b[key] ?? null, inner));
  }
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  if (kind === "list") return a.every((item, i) => valuesEqual(item, b[i]!, inner));
  return a.every((item) => b.some((other) => valuesEqual(item, other, inner)));
}
