import { z } from "zod";
import { LIMITS } from "./limits";
import { readableLine } from "./rules";

/** The scopes a key is made with: one of them, exactly (docs/api.md, ApiKeyService). */
export const API_KEY_SCOPES = ["read", "write"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const API_KEYS = {
  /** How often a key's last use is written: ListApiKeys' `lastUsedAt` is this precise. */
  lastUsedTouchSeconds: 60,
} as const;

const SCOPES_RULE = `must be exactly one of ${API_KEY_SCOPES.join(", ")}`;

/** A key to create, named as the contract names its fields; `now` is when the request arrived. */
export const newApiKeyFields = (now: Date) =>
  z.object({
    name: readableLine(LIMITS.nameMaxChars),
    scopes: z
      .array(z.string(), { error: SCOPES_RULE })
      .refine((scopes) => scopes.length === 1 && (API_KEY_SCOPES as readonly string[]).includes(scopes[0]!), SCOPES_RULE)
      .transform((scopes) => scopes as [ApiKeyScope]),
    expires_at: z.date().refine((at) => at.getTime() > now.getTime(), "must be in the future").optional(),
  });
