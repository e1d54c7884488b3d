import { create, createFileRegistry } from "@bufbuild/protobuf";
import { FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { GetMonitorRequestSchema } from "@vigil/proto";
import { jsonNumberCheck } from "../src";

/**
 * The number types the API's protos do not use (floats, unsigned and fixed
 * integers, integer map keys, a message holding itself), in a schema of
 * their own; the API's own fields are covered from outside in
 * apps/control-plane/test/request-encoding.test.ts.
 */
const field = (name: string, number: number, type: Type, more: object = {}) => ({ name, number, type, jsonName: name, label: Label.OPTIONAL, ...more });
const file = create(FileDescriptorProtoSchema, {
  name: "numbers.proto",
  package: "t",
  syntax: "proto3",
  messageType: [
    {
      name: "Numbers",
      field: [
        field("ratio", 1, Type.DOUBLE),
        field("weights", 2, Type.FLOAT, { label: Label.REPEATED }),
        field("count", 3, Type.UINT64),
        field("mask", 4, Type.FIXED32),
        field("by_id", 5, Type.MESSAGE, { typeName: ".t.Numbers.ByIdEntry", label: Label.REPEATED, jsonName: "byId" }),
        field("next", 6, Type.MESSAGE, { typeName: ".t.Numbers" }),
      ],
      nestedType: [{ name: "ByIdEntry", options: { mapEntry: true }, field: [field("key", 1, Type.INT32), field("value", 2, Type.SFIXED64)] }],
    },
  ],
});
const Numbers = createFileRegistry(file, () => undefined).getMessage("t.Numbers")!;
const check = jsonNumberCheck(Numbers)!;
const violations = (json: unknown): string => {
  try {
    check(json);
    return "";
  } catch (error) {
    return (error as Error).message;
  }
};

describe("the spelling of numbers in protobuf JSON", () => {
  it("takes JSON numbers, and strings in JSON's number syntax (64-bit integers: decimal digits)", () => {
    const taken = { ratio: "-1.5e-3", weights: [1.5, "2", "NaN", "Infinity", "-Infinity"], count: "18446744073709551615", mask: "1e3", byId: { "-7": "9" }, next: { ratio: "0.5" } };
    expect(violations(taken)).toBe("");
    expect(violations({ by_id: { "1": 2 }, count: 16 })).toBe("");
  });

  it("refuses other spellings, naming each field by its path as sent", () => {
    expect(violations({ ratio: "0x10" })).toBe('ratio: must be a number: a JSON number, a string holding one in JSON\'s number syntax, "NaN", "Infinity" or "-Infinity"');
    expect(violations({ weights: [1, " 2", "infinity"], count: "+1", mask: "0b1", next: { next: { count: "1e3" } } }).split("; ").map((v) => v.split(":")[0])).toEqual([
      "weights[1]",
      "weights[2]",
      "count",
      "mask",
      "next.next.count",
    ]);
    // An object lists the keys that are array indices first.
    expect(violations({ byId: { "0x1": "2", "3": "04" } })).toBe("byId.3: must be an integer: a JSON number, or a string of decimal digits; byId: must have decimal integers as keys");
  });

  it("leaves what is no number of this schema to the JSON reader", () => {
    expect(violations({ unknown: "0x10", ratio: null, weights: "0x10", byId: [], next: "0x10" })).toBe("");
  });

  it("needs no check for messages that hold no numbers", () => {
    expect(jsonNumberCheck(GetMonitorRequestSchema)).toBeUndefined();
  });
});
