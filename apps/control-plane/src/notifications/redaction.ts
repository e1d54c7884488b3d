import type { JsonObject } from "@bufbuild/protobuf";
import {
  SENSITIVE_FIELDS,
  blockName,
  redactCredentials,
  restoreCredentials,
  secretFingerprint,
  type ProviderConfig,
  type ProviderType,
} from "@vigil/domain";

/** Keys shorter than this are shown as "…" alone: their last characters would give away too much of them. */
const SHOWN_TAIL_FROM_CHARS = 16;
const SHOWN_TAIL_CHARS = 4;

export const sensitiveFieldsOf = (type: ProviderType): readonly string[] => SENSITIVE_FIELDS[type] as readonly string[];

/**
 * What answers show of a sensitive value: enough to tell which one is set,
 * nothing usable. A webhook URL keeps its scheme and host (`https://hooks.slack.com/…`);
 * a key or token keeps its last 4 characters when it has at least 16 (`…a1b2`).
 */
export function redact(field: string, value: string): string {
  if (value === "") return "";
  if (field.endsWith("Url")) {
    const url = URL.parse(value);
    return url ? `${url.protocol}//${url.host}/…` : "…";
  }
  return value.length >= SHOWN_TAIL_FROM_CHARS ? `…${value.slice(-SHOWN_TAIL_CHARS)}` : "…";
}

/**
 * The block as answers show it: every sensitive field redacted; for a read
 * key, the credentials of its other fields too (header values, URL user info,
 * a webhook endpoint's path and query: credentials.ts in @vigil/domain).
 */
export function redactConfig(provider: ProviderConfig, channelId: string, readKey: boolean): ProviderConfig {
  const config: Record<string, unknown> = { ...provider.config };
  for (const field of sensitiveFieldsOf(provider.type)) config[field] = redact(field, config[field] as string);
  return { type: provider.type, config: readKey ? credentialsOf(provider.type, config, (block) => redactCredentials(block, channelId)) : config } as ProviderConfig;
}

/** The domain's credential rules read a block under its JSON name: a webhook block's endpoint is a webhook URL. */
function credentialsOf<T>(type: ProviderType, fields: T, apply: (block: Record<string, T>) => Record<string, T>): T {
  const name = blockName(type);
  return apply({ [name]: fields })[name]!;
}

/** For each sensitive field that is set: its fingerprint (secretFingerprint), salted with the channel's id. */
export function secretFingerprints(channelId: string, provider: ProviderConfig): Record<string, string> {
  const config = provider.config as Record<string, unknown>;
  return Object.fromEntries(
    sensitiveFieldsOf(provider.type)
      .filter((field) => config[field] !== "")
      .map((field) => [field, secretFingerprint(channelId, String(config[field]))]),
  );
}

/**
 * A block sent back with a sensitive field exactly as answers show it means
 * "keep the stored value", so that get, modify and update round-trips work;
 * so does a credential as read keys are answered it (restoreCredentials).
 * Only within one provider type: another provider's block is new input.
 */
export function restoreRedacted(fields: JsonObject, type: ProviderType, stored: ProviderConfig, channelId: string): JsonObject {
  if (stored.type !== type) return fields;
  const storedConfig = stored.config as Record<string, unknown>;
  const restored = { ...fields };
  for (const field of sensitiveFieldsOf(type)) {
    const kept = storedConfig[field] as string;
    if (kept !== "" && fields[field] === redact(field, kept)) restored[field] = kept;
  }
  const storedBlock = { [blockName(type)]: storedConfig };
  return credentialsOf(type, restored, (block) => restoreCredentials(block, storedBlock, channelId));
}
