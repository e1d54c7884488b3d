import { LIMITS } from "./limits";
import { readableLine } from "./rules";
import { ValidationError, parseOrThrow } from "./validation";

const idRule = readableLine(LIMITS.idMaxChars);

/**
 * The id a request names (of a monitor, a page, a channel, …): required, and
 * refused naming the field when it could never be one (too long, or holding
 * a character no id has), rather than looked up.
 * @throws ValidationError naming `field`
 */
export function parseId(value: string, field = "id"): string {
  if (value === "") throw ValidationError.of(field, "is required");
  return parseOrThrow(idRule, value, field);
}
