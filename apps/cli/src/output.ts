import { stripVTControlCharacters } from "node:util";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { toJson, type DescEnum, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { enumCodecOf, type EnumCodec } from "@vigil/domain";
import pc from "picocolors";
import { stringify } from "yaml";
import { CliError, EXIT } from "./failures.js";

export const FORMATS = ["table", "json", "yaml"] as const;
export type Format = (typeof FORMATS)[number];

/**
 * The format `--output` names (table when it is not given). Checked here, not
 * by the parser, because `vigil export -o FILE` gives the same flag a file.
 */
export function formatOf(value: string | undefined): Format {
  if (value === undefined) return "table";
  if (!(FORMATS as readonly string[]).includes(value)) throw new CliError(`--output must be one of ${FORMATS.join(", ")}, not ${value}`, EXIT.usage);
  return value as Format;
}
export type Colors = ReturnType<typeof pc.createColors>;

/** How results are written: tables for people, the API's JSON form (as JSON or YAML) for scripts. */
export interface Output {
  readonly format: Format;
  readonly colors: Colors;
  /** The text of a result: its JSON form for json/yaml, `human()` for tables. */
  render(json: unknown, human: () => string): string;
  /** A response message, in the API's JSON form for scripts. */
  renderMessage<D extends DescMessage>(schema: D, message: MessageShape<D>, human: () => string): string;
  write(text: string): void;
}

/** Colour only in tables for people: on a terminal (or FORCE_COLOR), never with NO_COLOR. */
function wantsColor(format: Format, stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  if (format !== "table" || env.NO_COLOR) return false;
  if (env.FORCE_COLOR) return env.FORCE_COLOR !== "0";
  return Boolean(stream.isTTY) && env.TERM !== "dumb";
}

export function createOutput(format: Format, stream: NodeJS.WriteStream = process.stdout, env = process.env): Output {
  const colors = pc.createColors(wantsColor(format, stream, env));
  const render = (json: unknown, human: () => string) => {
    if (format === "json") return JSON.stringify(json, null, 2);
    if (format === "yaml") return stringify(json).trimEnd();
    return human();
  };
  return {
    format,
    colors,
    render,
    renderMessage: (schema, message, human) => render(toJson(schema, message), human),
    write: (text) => void stream.write(text.endsWith("\n") ? text : `${text}\n`),
  };
}

const width = (cell: string) => stripVTControlCharacters(cell).length;

/** Columns aligned on the widest cell; values are never cut, so piped output keeps them whole. */
/** `--json` is `-o json` for the commands about people and keys: scripts want the whole answer. */
export const jsonFlagOutput = (out: Output, json: boolean | undefined): Output => (json ? createOutput("json") : out);

/** A time of an answer as ISO 8601, or nothing when it is not set. */
export const isoTime = (at: Timestamp | undefined): string => (at ? timestampDate(at).toISOString() : "");

export function table(colors: Colors, headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) => Math.max(width(header), ...rows.map((row) => width(row[column] ?? ""))));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell + " ".repeat(widths[column]! - width(cell))))
      .join("  ")
      .trimEnd();
  return [line(headers.map((header) => colors.bold(header))), ...rows.map(line)].join("\n");
}

/**
 * An enum value in the words people write in flags and vigil.yaml (`30s`, `hostA-ams`, `GET`,
 * `unknown`): the one mapping of every table. Unspecified (0) is empty.
 */
export const word = (codec: EnumCodec<string>, value: number): string => String(codec.decode(value) ?? "");

/** Like `word`, by the enum's descriptor; an enum the domain has no words for keeps its proto name. */
function enumWord(desc: DescEnum, value: number): string {
  const codec = enumCodecOf(desc);
  return codec ? word(codec, value) : (desc.value[value]?.name ?? String(value));
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === "object" && !Array.isArray(value);

/** One field's JSON value (enums as numbers) with its enums in words, nested messages included. */
function fieldInWords(field: DescField, value: unknown, element: boolean): unknown {
  if (!element && (field.fieldKind === "list" || field.fieldKind === "map")) {
    if (Array.isArray(value)) return value.map((item) => fieldInWords(field, item, true));
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fieldInWords(field, item, true)]));
  }
  if (field.enum && typeof value === "number") return enumWord(field.enum, value);
  // Well-known types (Timestamp, Struct, …) have JSON forms of their own, not their fields.
  if (field.message && isObject(value) && !field.message.typeName.startsWith("google.protobuf.")) return messageInWords(field.message, value);
  return value;
}

function messageInWords(schema: DescMessage, json: JsonObject): JsonObject {
  const fields = new Map(schema.fields.map((field) => [field.jsonName, field]));
  return Object.fromEntries(Object.entries(json).map(([key, value]) => [key, fields.has(key) ? fieldInWords(fields.get(key)!, value, false) : value]));
}

/** One message as FIELD / VALUE rows, its enums in words; `-o json` and `-o yaml` keep the API's JSON form. */
export function messageDetails<D extends DescMessage>(colors: Colors, schema: D, message: MessageShape<D> | undefined, first: [string, string][] = []): string {
  return details(colors, message ? messageInWords(schema, toJson(schema, message, { enumAsInteger: true }) as JsonObject) : {}, first);
}

/** One resource as FIELD / VALUE rows, nested fields by their dotted JSON path. */
export function details(colors: Colors, json: unknown, first: [string, string][] = []): string {
  const rows: [string, string][] = [...first];
  flatten(json, "", rows);
  return table(
    colors,
    ["FIELD", "VALUE"],
    rows.map(([field, value]) => [field, field === "status" ? statusText(colors, value) : value]),
  );
}

function flatten(value: unknown, path: string, into: [string, string][]): void {
  if (Array.isArray(value) && value.every((item) => typeof item !== "object" || item === null)) {
    into.push([path, value.join(", ")]);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => flatten(item, `${path}[${index}]`, into));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) flatten(item, path ? `${path}.${key}` : key, into);
  } else {
    into.push([path, String(value)]);
  }
}

const STATUS_COLORS: Record<string, keyof Colors> = { active: "green", degraded: "yellow", error: "red", unknown: "dim" };

/** A monitor status in words (`active`, `error`, …) coloured by what it means. */
export function statusText(colors: Colors, status: string): string {
  const paint = STATUS_COLORS[status];
  return paint ? (colors[paint] as (text: string) => string)(status) : status;
}
