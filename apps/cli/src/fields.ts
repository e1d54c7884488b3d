import { readFile } from "node:fs/promises";
import { text as readStream } from "node:stream/consumers";
import { fromJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { InvalidArgumentError, Option, type Command } from "commander";
import { JSON_COMPARATORS, jsonComparatorCodec, jsonPathProblem, type EnumCodec, type JsonComparator } from "@vigil/domain";
import { CliError } from "./failures.js";

/**
 * A command-line flag that sets one field of a request body in the API's JSON
 * form, so flags and `--from-json` files describe the same thing.
 */
export interface FieldFlag {
  option: Option;
  /** The camelCase JSON name of the field it sets. */
  field: string;
}

const flag = (flags: string, field: string, description: string, parse?: (value: string, previous: unknown) => unknown): FieldFlag => {
  const option = new Option(flags, description);
  if (parse) option.argParser(parse);
  return { option, field };
};

const repeated =
  <T>(parseOne: (value: string) => T) =>
  (value: string, previous: unknown): T[] => [...((previous as T[] | undefined) ?? []), parseOne(value)];

export function parseInteger(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError("must be an integer");
  return Number(value);
}

export function parseDecimal(value: string): number {
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(value)) throw new InvalidArgumentError("must be a decimal number");
  return Number(value);
}

/** An enum value by its short name (`1m`, `hostA-ams`, `GET`), case aside; as its proto number, which JSON accepts. */
export function enumParser(codec: EnumCodec<string>) {
  return (value: string): number => {
    const known = codec.values.find((name) => name.toLowerCase() === value.toLowerCase());
    if (known === undefined) throw new InvalidArgumentError(`must be one of ${codec.values.join(", ")}`);
    return codec.encode(known);
  };
}

export function parseHeader(value: string): { key: string; value: string } {
  const at = value.indexOf(":");
  if (at <= 0) throw new InvalidArgumentError('must be "name: value"');
  return { key: value.slice(0, at).trim(), value: value.slice(at + 1).trim() };
}

/**
 * `--expect-json '<path> <comparator> [<target>]'`: the comparator is the
 * first word after which the text before it is a JSONPath query, so a query
 * with spaces (`$[?@.name == 'db']`) needs no quoting of its own; the target is
 * the rest, as it is.
 */
export function parseJsonAssertion(value: string): { path: string; comparator: number; target: string } {
  for (const word of value.matchAll(/\S+/g)) {
    if (word.index === 0 || !(JSON_COMPARATORS as readonly string[]).includes(word[0])) continue;
    const path = value.slice(0, word.index).trim();
    if (jsonPathProblem(path) !== undefined) continue;
    const target = value.slice(word.index + word[0].length).trim();
    return { path, comparator: jsonComparatorCodec.encode(word[0] as JsonComparator), target };
  }
  throw new InvalidArgumentError(`must be "<JSONPath> <comparator> [<target>]", such as "$.status eq ok", with a comparator of ${JSON_COMPARATORS.join(", ")}`);
}

export const fields = {
  text: (flags: string, field: string, description: string) => flag(flags, field, description),
  integer: (flags: string, field: string, description: string) => flag(flags, field, description, parseInteger),
  decimal: (flags: string, field: string, description: string) => flag(flags, field, description, parseDecimal),
  texts: (flags: string, field: string, description: string) => flag(flags, field, `${description} (repeatable)`, repeated(String)),
  enumeration: (flags: string, field: string, codec: EnumCodec<string>, description: string) =>
    flag(flags, field, `${description}: ${codec.values.join(", ")}`, enumParser(codec)),
  enumerations: (flags: string, field: string, codec: EnumCodec<string>, description: string) =>
    flag(flags, field, `${description} (repeatable): ${codec.values.join(", ")}`, repeated(enumParser(codec))),
  /** A comma list (`a,b`); "" is the empty list, which an update sends under its mask. */
  list: (flags: string, field: string, description: string) =>
    flag(flags, field, `${description}, comma-separated`, (value) => value.split(",").map((item) => item.trim()).filter((item) => item !== "")),
  each: <T>(flags: string, field: string, description: string, parseOne: (value: string) => T) =>
    flag(flags, field, `${description} (repeatable)`, repeated(parseOne)),
  /** `--name` sets true, `--no-name` false; neither leaves the field out. */
  toggle: (name: string, field: string, description: string): FieldFlag[] => [
    flag(`--${name}`, field, description),
    flag(`--no-${name}`, field, `the opposite of --${name}`),
  ],
};

/** Adds the flags, `--from-json` and, for updates, `--clear` to a command. */
export function withFields(command: Command, flags: FieldFlag[], update = false): Command {
  for (const { option } of flags) command.addOption(option);
  command.option("--from-json <file>", "the body in the API's JSON form, from a file or - for stdin; flags win over it");
  if (update) command.option("--clear <fields>", "comma list of fields to clear or reset to their defaults, by their JSON names");
  return command;
}

type Json = Record<string, unknown>;

/** The body a command sends: the `--from-json` document with the given flags laid over it. */
export async function bodyOf(flags: FieldFlag[], options: Record<string, unknown>): Promise<Json> {
  const body = options.fromJson ? await readJsonObject(String(options.fromJson)) : {};
  for (const { option, field } of flags) {
    const value = options[option.attributeName()];
    if (value !== undefined) body[field] = value;
  }
  return body;
}

async function readJsonObject(source: string): Promise<Json> {
  let text: string;
  try {
    text = source === "-" ? await readStream(process.stdin) : await readFile(source, "utf8");
  } catch (error) {
    throw new CliError(`cannot read --from-json ${source}: ${(error as Error).message}`);
  }
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("expected a JSON object");
    return value as Json;
  } catch (error) {
    throw new CliError(`--from-json ${source} is not a JSON object: ${(error as Error).message}`);
  }
}

/** A request message from its JSON form; a shape the API does not have is the caller's mistake. */
export function requestOf<D extends DescMessage>(schema: D, json: Json): MessageShape<D> {
  try {
    // A round trip through JSON drops the fields no flag set (undefined).
    return fromJson(schema, JSON.parse(JSON.stringify(json)));
  } catch (error) {
    throw new CliError(`the request does not fit the API's JSON form: ${(error as Error).message}`);
  }
}

/** `--limit` and `--offset` of list commands; their attribute names are the request's field names. */
export function withPaging(command: Command): Command {
  return command.option("--limit <n>", "at most this many", parseInteger).option("--offset <n>", "skip this many first", parseInteger);
}

/**
 * The updateMask of an update: none when nothing is cleared (the API then
 * applies the fields sent), else the fields sent and the ones to clear, as a
 * mask applies exactly the fields it names.
 */
export function updateMaskOf(body: Record<string, unknown>, clear: unknown): string | undefined {
  if (typeof clear !== "string" || !clear) return undefined;
  return [...Object.keys(body), ...clear.split(",").map((field) => field.trim())].join(",");
}
