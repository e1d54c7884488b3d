import { Periodicity, Region, RegionSchema } from "@vigil/proto";
import {
  LIMITS,
  REGION_IDS,
  defaultDegradedAt,
  isReadableLine,
  isStorableText,
  parseHostPort,
  periodicityCodec,
  regionCodec,
  regionIdFromEnumName,
  stringComparatorCodec,
} from "../src";

describe("regions", () => {
  it("has the 28 ids of the contract's region table, each with its proto enum value", () => {
    expect(REGION_IDS).toHaveLength(28);
    expect(RegionSchema.values.filter((v) => v.number !== 0)).toHaveLength(28);
    expect(regionCodec.encode("hostA-ams")).toBe(Region.HOSTA_AMS);
    expect(regionCodec.encode("hostB-fra")).toBe(Region.HOSTB_FRA);
    expect(regionCodec.encode("hostC-us-east4")).toBe(Region.HOSTC_US_EAST4);
    expect(regionCodec.decode(Region.HOSTC_ASIA_SOUTHEAST1)).toBe("hostC-asia-southeast1");
    for (const id of REGION_IDS) expect(regionCodec.decode(regionCodec.encode(id))).toBe(id);
  });

  it("derives the text form from the enum name", () => {
    expect(regionIdFromEnumName("HOSTC_EUROPE_WEST4")).toBe("hostC-europe-west4");
  });

  it("decodes UNSPECIFIED as not given and keeps unknown numbers for validation to report", () => {
    expect(regionCodec.decode(0)).toBeUndefined();
    expect(regionCodec.decode(999)).toBe(999);
  });
});

describe("enum text forms", () => {
  it("maps periodicities and comparators to the contract's names", () => {
    expect(periodicityCodec.values).toEqual(["30s", "1m", "5m", "10m", "30m", "1h"]);
    expect(periodicityCodec.decode(Periodicity.PERIODICITY_30S)).toBe("30s");
    expect(stringComparatorCodec.values).toEqual(["contains", "not_contains", "eq", "neq", "empty", "not_empty", "gt", "gte", "lt", "lte"]);
  });
});

describe("degradedAt default", () => {
  it.each([
    [45_000, 22_500],
    [1_001, 500],
    [0, 60_000],
    [LIMITS.timeoutMs.max, 60_000],
  ])("is half of a %i ms timeout: %i", (timeout, expected) => {
    expect(defaultDegradedAt(timeout)).toBe(expected);
  });
});

describe("host:port", () => {
  it.each([
    ["example.com:443", { host: "example.com", port: 443 }],
    ["10.0.0.1:5432", { host: "10.0.0.1", port: 5432 }],
    ["[2001:db8::1]:53", { host: "2001:db8::1", port: 53 }],
    ["example.com", null],
    ["example.com:0", null],
    ["example.com:65536", null],
    ["2001:db8::1:53", null],
    ["[nope]:80", null],
    ["bad host:80", null],
  ])("%s", (input, expected) => {
    expect(parseHostPort(input)).toEqual(expected);
  });
});

describe("text a field stores", () => {
  it("holds any Unicode but U+0000 and surrogates without their pair", () => {
    expect(["", "plain", "tab\tand\nlines", "🚀 ✓ Ünï", "\u0007\ufffe"].map(isStorableText)).toEqual([true, true, true, true, true]);
    expect(["a\u0000b", "a\ud800b", "\udc00", "end\ud83d"].map(isStorableText)).toEqual([false, false, false, false]);
  });

  it("is one readable line in a name or title: no control characters or noncharacters", () => {
    expect(["Ünïcode ✓ 🚀", "a b", "\u00a0nbsp"].map(isReadableLine)).toEqual([true, true, true]);
    expect(["a\u0000", "a\tb", "a\nb", "a\rb", "\u001b[31m", "a\u007f", "a\u0085", "a\ufffe", "a\uffff", "a\ufdd0"].map(isReadableLine)).toEqual(Array(10).fill(false));
  });
});
