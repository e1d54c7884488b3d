import { encode, ExtData } from "@msgpack/msgpack";
import { LosslessNumber } from "lossless-json";
import { decodeMsgpack, decodeStateJson, encodeMsgpack, UNKNOWN, valuesEqual, type CtyType } from "../src/values/index.js";

const type: CtyType = ["object", { id: "string", count: "number", tags: ["set", "string"], nested: ["list", ["object", { n: "number" }]] }];
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("DynamicValue msgpack", () => {
  it("reads unknown values, refined ones included, and writes them back as extension 0", () => {
    // Terraform writes an unknown as fixext1 type 0, and a string known to start with "db-" as extension 12 with its refinements.
    const refined = new ExtData(12, Uint8Array.from([0x81, 0x02, 0xa3, 0x64, 0x62, 0x2d]));
    const bytes = encode({ id: new ExtData(0, Uint8Array.from([0])), count: refined, tags: null, nested: [] });
    const value = decodeMsgpack(bytes, type);
    expect(value).toEqual({ id: UNKNOWN, count: UNKNOWN, tags: null, nested: [] });
    expect(hex(encodeMsgpack(value, type))).toContain("d40000");
  });

  it("echoes int64 beyond 2^53 and decimal strings exactly", () => {
    const big = 2n ** 62n + 1n;
    const wire = encode({ id: "a", count: big, tags: ["x"], nested: [{ n: "0.1" }, { n: 1.5 }, { n: "123456789012345678901234567890" }] }, { useBigInt64: true });
    const value = decodeMsgpack(wire, type) as Record<string, unknown>;
    expect(value.count).toEqual(new LosslessNumber(big.toString()));
    expect(hex(encodeMsgpack(value as never, type))).toBe(hex(wire));
  });

  it("writes every attribute of an object, absent ones as nil", () => {
    const encoded = encodeMsgpack({ id: "a" }, type);
    expect(decodeMsgpack(encoded, type)).toEqual({ id: "a", count: null, tags: null, nested: null });
  });

  it("reads empty bytes as null", () => {
    expect(decodeMsgpack(new Uint8Array(), type)).toBeNull();
  });
});

describe("stored state JSON", () => {
  it("keeps large integers and decimals exactly", () => {
    const json = '{"id":"a","count":9007199254740993,"tags":["x"],"nested":[{"n":0.1},{"n":12345678901234567890.5}]}';
    const value = decodeStateJson(Buffer.from(json), type) as Record<string, unknown>;
    expect(value.count).toEqual(new LosslessNumber("9007199254740993"));
    const roundTrip = decodeMsgpack(encodeMsgpack(value as never, type), type) as Record<string, unknown>;
    expect(roundTrip).toEqual(value);
    expect(decodeMsgpack(encodeMsgpack(value as never, type), type)).toEqual({
      id: "a",
      count: new LosslessNumber("9007199254740993"),
      tags: ["x"],
      nested: [{ n: new LosslessNumber("0.1") }, { n: new LosslessNumber("12345678901234567890.5") }],
    });
  });
});

describe("value equality", () => {
  it("compares numbers by value and sets without order", () => {
    expect(valuesEqual({ id: "a", count: 45000, tags: ["x", "y"], nested: [] }, { id: "a", count: new LosslessNumber("45000"), tags: ["y", "x"], nested: [] }, type)).toBe(true);
    expect(valuesEqual({ id: "a", count: 1, tags: [], nested: [{ n: 1 }, { n: 2 }] }, { id: "a", count: 1, tags: [], nested: [{ n: 2 }, { n: 1 }] }, type)).toBe(false);
  });
});
