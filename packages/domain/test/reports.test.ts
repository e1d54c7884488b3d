import { coveredMs, parseReportMonth } from "../src";

const NOW = new Date("2026-11-29T12:00:00Z");
const at = (iso: string) => new Date(iso);

describe("a report's month", () => {
  it.each([
    ["2026-11", "2026-11-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z"],
    ["2026-01", "2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"],
    ["2025-12", "2025-12-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"],
  ])("%s spans [%s, %s)", (month, from, to) => {
    expect(parseReportMonth(month, NOW)).toEqual({ month, from: at(from), to: at(to) });
  });

  it.each(["2026-12", "2027-01"])("%s is after the current month", (month) => {
    expect(() => parseReportMonth(month, NOW)).toThrow("month: must not be after the current month (2026-11)");
  });

  it.each(["2026-00", "2026-13", "2026-1", "202611", "2026-11-01", " 2026-11", ""])("%p is not a month", (month) => {
    expect(() => parseReportMonth(month, NOW)).toThrow("month: must be a month as YYYY-MM, e.g. 2026-11");
  });
});

describe("time covered by intervals", () => {
  const from = at("2026-11-01T00:00:00Z");
  const to = at("2026-11-02T00:00:00Z");
  const h = (hour: number) => new Date(from.getTime() + hour * 3_600_000);
  it.each([
    ["none", [], 0],
    ["one inside", [{ start: h(1), end: h(3) }], 2],
    ["overlapping ones once", [{ start: h(1), end: h(3) }, { start: h(2), end: h(4) }], 3],
    ["one inside another", [{ start: h(1), end: h(10) }, { start: h(2), end: h(4) }], 9],
    ["clipped at both edges", [{ start: h(-5), end: h(1) }, { start: h(23), end: h(30) }], 2],
    ["an open one until the end", [{ start: h(20), end: null }], 4],
    ["ones outside", [{ start: h(-5), end: h(-1) }, { start: h(25), end: h(26) }], 0],
  ])("%s", (_, intervals, hours) => {
    expect(coveredMs(intervals, from, to)).toBe(hours * 3_600_000);
  });
});
