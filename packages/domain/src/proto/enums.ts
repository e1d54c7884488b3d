import type { DescEnum } from "@bufbuild/protobuf";
import {
  HTTPMethodSchema,
  JsonComparatorSchema,
  MonitorStatusSchema,
  NumberComparatorSchema,
  PeriodicitySchema,
  RecordComparatorSchema,
  RegionSchema,
  StringComparatorSchema,
  TimeRangeSchema,
} from "@vigil/proto";
import {
  HTTP_METHODS,
  JSON_COMPARATORS,
  MONITOR_STATUSES,
  NUMBER_COMPARATORS,
  RECORD_COMPARATORS,
  STRING_COMPARATORS,
  TIME_RANGES,
  type HttpMethod,
  type JsonComparator,
  type MonitorStatus,
  type NumberComparator,
  type RecordComparator,
  type StringComparator,
  type TimeRange,
} from "../comparators";
import { PERIODICITIES, type Periodicity } from "../periodicity";
import { REGION_IDS, type RegionId } from "../regions";

/**
 * Maps a protobuf enum onto the domain's text values. Value 0 (UNSPECIFIED)
 * decodes to undefined, i.e. "not given"; a number the contract does not know
 * decodes to itself, so validation reports it as not one of the allowed values.
 */
export interface EnumCodec<T extends string> {
  decode(value: number): T | number | undefined;
  encode(value: T): number;
  /** Every value, in proto order. */
  readonly values: readonly T[];
}

/** Every codec by the full name of its proto enum, so a message's enums can be put in words field by field. */
const codecsByEnum = new Map<string, EnumCodec<string>>();

/** The codec of a contract enum (undefined for one the domain has no words for). */
export const enumCodecOf = (desc: DescEnum): EnumCodec<string> | undefined => codecsByEnum.get(desc.typeName);

function enumCodec<T extends string>(desc: DescEnum, prefix: string, allowed: readonly T[], toText: (suffix: string) => string): EnumCodec<T> {
  const byNumber = new Map<number, T>();
  const byText = new Map<T, number>();
  for (const value of desc.values) {
    if (value.number === 0) continue;
    const text = toText(value.name.slice(prefix.length)) as T;
    if (!value.name.startsWith(prefix) || !allowed.includes(text)) {
      throw new Error(`${desc.typeName}.${value.name} has no counterpart in @vigil/domain`);
    }
    byNumber.set(value.number, text);
    byText.set(text, value.number);
  }
  const missing = allowed.filter((text) => !byText.has(text));
  if (missing.length) throw new Error(`${desc.typeName} lacks values for ${missing.join(", ")}`);
  const codec: EnumCodec<T> = {
    decode: (value) => (value === 0 ? undefined : (byNumber.get(value) ?? value)),
    encode: (value) => byText.get(value)!,
    values: [...byText.keys()],
  };
  codecsByEnum.set(desc.typeName, codec);
  return codec;
}

const COMPARATOR_NAMES: Record<string, string> = {
  EQUAL: "eq",
  NOT_EQUAL: "neq",
  GREATER_THAN: "gt",
  GREATER_THAN_OR_EQUAL: "gte",
  LESS_THAN: "lt",
  LESS_THAN_OR_EQUAL: "lte",
  CONTAINS: "contains",
  NOT_CONTAINS: "not_contains",
  EMPTY: "empty",
  NOT_EMPTY: "not_empty",
  EXISTS: "exists",
  NOT_EXISTS: "not_exists",
};
const comparatorText = (suffix: string) => COMPARATOR_NAMES[suffix] ?? suffix;

/** REGION_HOSTA_AMS -> hostA-ams, REGION_HOSTC_US_EAST4 -> hostC-us-east4 */
export function regionIdFromEnumName(suffix: string): string {
  const [host = "", ...location] = suffix.split("_");
  return `host${host.slice("HOST".length)}-${location.join("-").toLowerCase()}`;
}

export const periodicityCodec = enumCodec<Periodicity>(PeriodicitySchema, "PERIODICITY_", PERIODICITIES, (s) => s.toLowerCase());
export const httpMethodCodec = enumCodec<HttpMethod>(HTTPMethodSchema, "HTTP_METHOD_", HTTP_METHODS, (s) => s);
export const numberComparatorCodec = enumCodec<NumberComparator>(NumberComparatorSchema, "NUMBER_COMPARATOR_", NUMBER_COMPARATORS, comparatorText);
export const stringComparatorCodec = enumCodec<StringComparator>(StringComparatorSchema, "STRING_COMPARATOR_", STRING_COMPARATORS, comparatorText);
export const jsonComparatorCodec = enumCodec<JsonComparator>(JsonComparatorSchema, "JSON_COMPARATOR_", JSON_COMPARATORS, comparatorText);
export const recordComparatorCodec = enumCodec<RecordComparator>(RecordComparatorSchema, "RECORD_COMPARATOR_", RECORD_COMPARATORS, comparatorText);
export const regionCodec = enumCodec<RegionId>(RegionSchema, "REGION_", REGION_IDS, regionIdFromEnumName);
export const monitorStatusCodec = enumCodec<MonitorStatus>(MonitorStatusSchema, "MONITOR_STATUS_", MONITOR_STATUSES, (s) => s.toLowerCase());
export const timeRangeCodec = enumCodec<TimeRange>(TimeRangeSchema, "TIME_RANGE_", Object.keys(TIME_RANGES) as TimeRange[], (s) => s.toLowerCase());
