import type { MonitorRow } from "@vigil/db";
import { haveSameShape, hasFastProperties, optimizeAfter } from "../../../test/v8-shapes";
import { recordOfRow } from "../src/monitors/repository";

// The control plane keeps a record per monitor (records-by-version.ts): each one's hidden class is
// memory, and records of one kind that differ in it make every reader of their fields megamorphic.
const row = (i: number, kind: MonitorRow["kind"]): MonitorRow =>
  ({
    id: `mon_${i}`,
    workspaceId: "ws_1",
    kind,
    name: `monitor ${i}`,
    target: kind === "http" ? `https://example.com/${i}` : "example.com:443",
    periodicity: "30s",
    timeoutMs: 45_000,
    retry: 3,
    degradedAtMs: 30_000,
    regions: ["hostA-ams"],
    active: true,
    public: false,
    description: "",
    openTelemetry: null,
    method: "GET",
    body: null,
    headers: [],
    followRedirects: null,
    statusCodeAssertions: [],
    bodyAssertions: [],
    headerAssertions: [],
    recordAssertions: [{ record: "A", target: "192.0.2.1", comparator: "eq" }],
    externalId: null,
    status: "active",
    createdAt: new Date(),
    updatedAt: new Date(),
  }) as unknown as MonitorRow;

describe("monitor records", () => {
  it.each(["http", "tcp", "dns"] as const)("of kind %s share one hidden class once their mapping is optimized", (kind) => {
    let i = 0;
    optimizeAfter(recordOfRow, () => recordOfRow(row(i++, kind)));
    const [a, b, c] = [1, 2, 3].map((n) => recordOfRow(row(1000 + n, kind)).config);
    expect(haveSameShape(a!, b!)).toBe(true);
    expect(haveSameShape(b!, c!)).toBe(true);
    expect(hasFastProperties(a!)).toBe(true);
  });

  it("keep the configuration's fields in the contract's order, the common ones first", () => {
    expect(Object.keys(recordOfRow(row(1, "tcp")).config)).toEqual([
      "name",
      "periodicity",
      "timeout",
      "retry",
      "degradedAt",
      "regions",
      "active",
      "public",
      "description",
      "openTelemetry",
      "uri",
    ]);
  });
});
