import { z } from "zod";
import { DEFAULTS, LIMITS } from "./limits";
import { integer } from "./rules";
import { parseOrThrow } from "./validation";

const pageSchema = z.object({
  limit: integer(LIMITS.listLimit).default(DEFAULTS.listLimit),
  offset: integer({ min: 0, max: 2 ** 31 - 1 }).default(DEFAULTS.listOffset),
});

export type Page = z.output<typeof pageSchema>;

/** limit 1 to 100 (default 50) and offset of 0 or more (default 0); absent means default. */
export function parsePage(input: { limit?: number | undefined; offset?: number | undefined }): Page {
  return parseOrThrow(pageSchema, input, "");
}
