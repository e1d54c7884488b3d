import { isReflectMessage, reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import type { Interceptor } from "@connectrpc/connect";
import { NOT_STORABLE_RULE, ValidationError, isStorableText } from "@vigil/domain";

interface Text {
  /** Its field's path in the request, as violations name fields: `monitor.headers[0].value`. */
  path: string;
  value: string;
}

/** Every text a request message holds, at any depth: strings, lists of them, map keys and values. */
function* textsOf(message: ReflectMessage, prefix = ""): Generator<Text> {
  for (const field of message.fields) {
    if (!message.isSet(field)) continue;
    const path = prefix ? `${prefix}.${field.localName}` : field.localName;
    if (field.fieldKind === "list") {
      let index = 0;
      for (const item of message.get(field)) yield* textsIn(item, `${path}[${index++}]`);
    } else if (field.fieldKind === "map") {
      for (const [key, item] of message.get(field)) {
        yield { path: `${path}.${key}`, value: String(key) };
        yield* textsIn(item, `${path}.${key}`);
      }
    } else {
      yield* textsIn(message.get(field), path);
    }
  }
}

function* textsIn(value: unknown, path: string): Generator<Text> {
  if (typeof value === "string") yield { path, value };
  else if (isReflectMessage(value)) yield* textsOf(value, path);
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
      const violations = [...textsOf(reflect(req.method.input, req.message))]
        .filter((text) => !isStorableText(text.value))
        .map((text) => ({ field: text.path, rule: NOT_STORABLE_RULE }));
      if (violations.length > 0) throw new ValidationError(violations);
    }
    return next(req);
  };
}
