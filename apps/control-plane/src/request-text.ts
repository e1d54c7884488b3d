import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { NOT_STORABLE_RULE, ValidationError, isStorableText } from "@vigil/domain";

interface Text {
  /** Its field's path in the request, as violations name fields: `monitor.headers[0].value`. */
  path: string;
  value: string;
}

/** Every text a request message holds, at any depth: strings, lists of them, map keys and values. */
export function* textsOf(schema: DescMessage, message: Record<string, unknown>, prefix = ""): Generator<Text> {
  for (const field of schema.fields) {
    const holder = field.oneof ? (message[field.oneof.localName] as { case?: string; value?: unknown } | undefined) : undefined;
    if (field.oneof && holder?.case !== field.localName) continue;
    const value = holder ? holder.value : message[field.localName];
    if (value === undefined || value === null) continue;
    yield* textsOfField(field, value, prefix ? `${prefix}.${field.localName}` : field.localName);
  }
}

function* textsOfField(field: DescField, value: unknown, path: string): Generator<Text> {
  switch (field.fieldKind) {
    case "scalar":
      if (typeof value === "string") yield { path, value };
      return;
    case "message":
      yield* textsOf(field.message, value as Record<string, unknown>, path);
      return;
    case "list":
      for (const [index, item] of (value as unknown[]).entries()) {
        if (typeof item === "string") yield { path: `${path}[${index}]`, value: item };
        else if (field.listKind === "message") yield* textsOf(field.message, item as Record<string, unknown>, `${path}[${index}]`);
      }
      return;
    case "map":
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        yield { path: `${path}.${key}`, value: key };
        if (typeof item === "string") yield { path: `${path}.${key}`, value: item };
        else if (field.mapKind === "message") yield* textsOf(field.message, item as Record<string, unknown>, `${path}.${key}`);
      }
      return;
    case "enum":
      return;
  }
}

/**
 * Refuses a request any of whose texts the database could not store, in any
 * field: the ones the handlers read have the same rule in @vigil/domain, and
 * this holds it for every other (read-only fields the API ignores, which the
 * audit log still records) before a handler runs.
 */
export function storableTextOnly(): Interceptor {
  return (next) => (req) => {
    if (!req.stream) {
      const violations = [...textsOf(req.method.input, req.message as unknown as Record<string, unknown>)]
        .filter((text) => !isStorableText(text.value))
        .map((text) => ({ field: text.path, rule: NOT_STORABLE_RULE }));
      if (violations.length > 0) throw new ValidationError(violations);
    }
    return next(req);
  };
}
