import { create, equals, fromBinary, isMessage, toBinary, toJsonString } from "@bufbuild/protobuf";
import { DNSMonitorSchema, HTTPMonitorSchema, TCPMonitorSchema } from "@vigil/proto";
import { monitorToMessage, parseMonitorConfig, type MonitorKind, type MonitorRecord } from "../src";

const record = <K extends MonitorKind>(kind: K, input: Parameters<typeof parseMonitorConfig>[1]): MonitorRecord<K> => ({
  id: `mon_${kind}`,
  kind,
  config: parseMonitorConfig(kind, input),
  externalId: null,
  status: "active",
  createdAt: new Date("2026-11-27T10:00:00.000Z"),
  updatedAt: new Date("2026-11-27T10:05:00.000Z"),
});

const cases = [
  {
    schema: HTTPMonitorSchema,
    record: record("http", {
      name: "api",
      periodicity: "30s",
      url: "https://api.example.com/health",
      regions: ["hostA-ams", "hostB-fra"],
      headers: [{ key: "accept", value: "application/json" }],
      statusCodeAssertions: [{ target: 200, comparator: "eq" }],
      bodyAssertions: [{ target: "ok", comparator: "contains" }],
    }),
  },
  { schema: TCPMonitorSchema, record: record("tcp", { name: "db", periodicity: "1m", uri: "db.example.com:5432", regions: ["hostA-ams"] }) },
  {
    schema: DNSMonitorSchema,
    record: record("dns", {
      name: "zone",
      periodicity: "5m",
      uri: "example.com",
      regions: ["hostA-ams"],
      recordAssertions: [{ record: "A", target: "192.0.2.1", comparator: "eq" }],
    }),
  },
] as const;

describe("monitorToMessage", () => {
  it.each(cases)("makes a $schema.typeName whose JSON carries the record's id, name and times", ({ schema, record }) => {
    const message = monitorToMessage(record);
    expect(isMessage(message, schema)).toBe(true);
    const json = JSON.parse(toJsonString(schema, message)) as Record<string, unknown>;
    expect(json).toMatchObject({ id: record.id, name: record.config.name, createdAt: "2026-11-27T10:00:00Z", updatedAt: "2026-11-27T10:05:00Z" });
  });

  it.each(cases)("makes the $schema.typeName that create() makes of the same fields, every field set", ({ schema, record }) => {
    const message = monitorToMessage(record);
    const { $typeName, ...fields } = message;
    const created = create(schema, fields as never);
    const setKeys = (of: object) => Object.entries(of).flatMap(([key, value]) => (value === undefined ? [] : [key])).sort();
    expect(setKeys(message)).toEqual(setKeys(created));
    expect(equals(schema, message as never, created)).toBe(true);
    expect(equals(schema, message as never, fromBinary(schema, toBinary(schema, message as never)))).toBe(true);
    expect(toJsonString(schema, message as never, { alwaysEmitImplicit: true })).toBe(toJsonString(schema, created, { alwaysEmitImplicit: true }));
    // A time before 1970 keeps its nanos within a second, as Timestamp requires.
    const early = monitorToMessage({ ...record, createdAt: new Date(-1_500) } as never) as { createdAt: { seconds: bigint; nanos: number } };
    expect(early.createdAt).toMatchObject({ seconds: -2n, nanos: 500_000_000 });
  });
});
