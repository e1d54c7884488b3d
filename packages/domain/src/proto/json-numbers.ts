import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { ValidationError, type FieldViolation } from "../validation";

/** JSON's number syntax (RFC 8259, section 6). */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const DECIMAL_INTEGER = /^-?(?:0|[1-9]\d*)$/;
const FLOAT_WORDS = new Set(["NaN", "Infinity", "-Infinity"]);

interface Spelling {
  allows(text: string): boolean;
  rule: string;
}

/*
 * The protobuf JSON mapping takes a number as a JSON number, or as a string holding one in JSON's own
 * number syntax: its conformance tests refuse " 1", "1 ", "+1" and "01". protobuf-es reads such a
 * string with Number() or BigInt(), which also take hexadecimal, octal and binary, a plus sign, leading
 * zeros and surrounding spaces ("0x10" was taken as 16), so those spellings are refused before it reads
 * them. A 64-bit integer in a string takes decimal digits only: BigInt reads no fraction or exponent,
 * so protobuf-es refuses "1e3" there (as "out of range"), though the mapping allows it.
 */
const INTEGER_64: Spelling = { allows: (text) => DECIMAL_INTEGER.test(text), rule: "must be an integer: a JSON number, or a string of decimal digits" };
const INTEGER_32: Spelling = { allows: (text) => JSON_NUMBER.test(text), rule: "must be an integer: a JSON number, or a string holding one in JSON's number syntax" };
const FLOATING: Spelling = {
  allows: (text) => JSON_NUMBER.test(text) || FLOAT_WORDS.has(text),
  rule: 'must be a number: a JSON number, a string holding one in JSON\'s number syntax, "NaN", "Infinity" or "-Infinity"',
};
const MAP_KEY: Spelling = { allows: (text) => DECIMAL_INTEGER.test(text), rule: "must have decimal integers as keys" };

function spellingOf(scalar: ScalarType): Spelling | undefined {
  switch (scalar) {
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return INTEGER_64;
    case ScalarType.INT32:
    case ScalarType.UINT32:
    case ScalarType.SINT32:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return INTEGER_32;
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return FLOATING;
    default:
      return undefined;
  }
}

/** What a field's values are: its scalar type or message type (list items, map values); undefined for enums. */
function valueType(field: DescField): ScalarType | DescMessage | undefined {
  switch (field.fieldKind) {
    case "scalar":
      return field.scalar;
    case "message":
      return field.message;
    case "list":
      return field.listKind === "scalar" ? field.scalar : field.listKind === "message" ? field.message : undefined;
    case "map":
      return field.mapKind === "scalar" ? field.scalar : field.mapKind === "message" ? field.message : undefined;
    default:
      return undefined;
  }
}

/** Well-known types have JSON forms of their own (a Timestamp is a string), which protobuf-es reads by their own rules. */
const hasOwnJsonForm = (schema: DescMessage) => schema.typeName.startsWith("google.protobuf.");

function holdsNumbers(schema: DescMessage, seen: Set<DescMessage>): boolean {
  if (seen.has(schema) || hasOwnJsonForm(schema)) return false;
  seen.add(schema);
  return schema.fields.some((field) => {
    const type = valueType(field);
    if (field.fieldKind === "map" && spellingOf(field.mapKey)) return true;
    return typeof type === "number" ? spellingOf(type) !== undefined : type !== undefined && holdsNumbers(type, seen);
  });
}

const isObject = (json: unknown): json is Record<string, unknown> => typeof json === "object" && json !== null && !Array.isArray(json);

const fieldsByKey = new WeakMap<DescMessage, Map<string, DescField>>();
/** A message's fields by the keys protobuf-es takes for them: the JSON name and the proto name. */
function fieldsOf(schema: DescMessage): Map<string, DescField> {
  let fields = fieldsByKey.get(schema);
  if (!fields) {
    fields = new Map(schema.fields.flatMap((field) => [[field.name, field] as const, [field.jsonName, field] as const]));
    fieldsByKey.set(schema, fields);
  }
  return fields;
}

function visitValue(type: ScalarType | DescMessage | undefined, json: unknown, path: string, out: FieldViolation[]): void {
  if (typeof type === "number") {
    const spelling = spellingOf(type);
    if (typeof json === "string" && spelling && !spelling.allows(json)) out.push({ field: path, rule: spelling.rule });
  } else if (type !== undefined && isObject(json) && !hasOwnJsonForm(type)) {
    const fields = fieldsOf(type);
    // Keys that name no field are protobuf-es' to refuse.
    for (const key in json) {
      const field = fields.get(key);
      if (field) visitField(field, json[key], path ? `${path}.${key}` : key, out);
    }
  }
}

function visitField(field: DescField, json: unknown, path: string, out: FieldViolation[]): void {
  const type = valueType(field);
  if (field.fieldKind === "list") {
    if (Array.isArray(json)) json.forEach((item, i) => visitValue(type, item, `${path}[${i}]`, out));
  } else if (field.fieldKind === "map") {
    if (!isObject(json)) return;
    const integerKeys = spellingOf(field.mapKey) !== undefined;
    for (const key in json) {
      if (integerKeys && !MAP_KEY.allows(key)) out.push({ field: path, rule: MAP_KEY.rule });
      visitValue(type, json[key], `${path}.${key}`, out);
    }
  } else {
    visitValue(type, json, path, out);
  }
}

/**
 * The check that a request of `schema`, parsed from JSON, spells its numbers
 * as the protobuf JSON mapping allows: it throws a ValidationError naming each
 * field that does not. Undefined when the messages hold no numbers, so that
 * their JSON need not be parsed for it.
 */
export function jsonNumberCheck(schema: DescMessage): ((json: unknown) => void) | undefined {
  if (!holdsNumbers(schema, new Set())) return undefined;
  return (json) => {
    const violations: FieldViolation[] = [];
    visitValue(schema, json, "", violations);
    if (violations.length > 0) throw new ValidationError(violations);
  };
}
