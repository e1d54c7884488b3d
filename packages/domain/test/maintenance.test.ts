import { ValidationError, inMaintenance, maintenanceTimes, nextOccurrences, occurrencesBetween, parseMaintenance, recurrenceProblem, type MaintenanceTiming } from "../src";

const iso = (o: { startsAt: Date; endsAt: Date }) => [o.startsAt.toISOString(), o.endsAt.toISOString()];

/** "Every Sunday 02:00-03:00 Europe/Berlin", first on 1 March 2026 (CET, UTC+1). */
const sundays: MaintenanceTiming = {
  startsAt: new Date("2026-03-01T01:00:00Z"),
  endsAt: new Date("2026-03-01T02:00:00Z"),
  recurrence: "FREQ=WEEKLY;BYDAY=SU",
  timezone: "Europe/Berlin",
};

describe("maintenance occurrences", () => {
  it.each<[string, MaintenanceTiming, string, string, string[][]]>([
    [
      "a one-off window",
      { startsAt: new Date("2026-05-04T22:00:00Z"), endsAt: new Date("2026-05-05T01:30:00Z"), recurrence: "", timezone: "UTC" },
      "2026-05-01T00:00:00Z",
      "2026-06-01T00:00:00Z",
      [["2026-05-04T22:00:00.000Z", "2026-05-05T01:30:00.000Z"]],
    ],
    [
      // 02:00 stays 02:00 local: 01:00Z in winter time, 00:00Z in summer time; on 29 March 02:00 does not
      // exist in Berlin and RFC 5545 (3.3.10) has no occurrence that day.
      "weekly across the March DST change",
      sundays,
      "2026-03-20T00:00:00Z",
      "2026-04-06T00:00:00Z",
      [
        ["2026-03-22T01:00:00.000Z", "2026-03-22T02:00:00.000Z"],
        ["2026-04-05T00:00:00.000Z", "2026-04-05T01:00:00.000Z"],
      ],
    ],
    [
      // 25 October has 02:00 twice; the first (summer time, 00:00Z) counts.
      "weekly across the October DST change",
      sundays,
      "2026-10-17T00:00:00Z",
      "2026-11-02T00:00:00Z",
      [
        ["2026-10-18T00:00:00.000Z", "2026-10-18T01:00:00.000Z"],
        ["2026-10-25T00:00:00.000Z", "2026-10-25T01:00:00.000Z"],
        ["2026-11-01T01:00:00.000Z", "2026-11-01T02:00:00.000Z"],
      ],
    ],
    [
      "a rule with COUNT",
      { startsAt: new Date("2026-01-10T09:00:00Z"), endsAt: new Date("2026-01-10T09:30:00Z"), recurrence: "FREQ=DAILY;COUNT=3", timezone: "UTC" },
      "2026-01-01T00:00:00Z",
      "2026-02-01T00:00:00Z",
      [
        ["2026-01-10T09:00:00.000Z", "2026-01-10T09:30:00.000Z"],
        ["2026-01-11T09:00:00.000Z", "2026-01-11T09:30:00.000Z"],
        ["2026-01-12T09:00:00.000Z", "2026-01-12T09:30:00.000Z"],
      ],
    ],
    [
      "a rule with UNTIL (inclusive), monthly in New York",
      { startsAt: new Date("2026-01-15T15:00:00Z"), endsAt: new Date("2026-01-15T16:00:00Z"), recurrence: "FREQ=MONTHLY;UNTIL=20260415T140000Z", timezone: "America/New_York" },
      "2026-01-01T00:00:00Z",
      "2026-12-01T00:00:00Z",
      [
        ["2026-01-15T15:00:00.000Z", "2026-01-15T16:00:00.000Z"],
        ["2026-02-15T15:00:00.000Z", "2026-02-15T16:00:00.000Z"],
        ["2026-03-15T14:00:00.000Z", "2026-03-15T15:00:00.000Z"],
        ["2026-04-15T14:00:00.000Z", "2026-04-15T15:00:00.000Z"],
      ],
    ],
  ])("%s", (_, timing, from, to, expected) => {
    expect(occurrencesBetween(timing, new Date(from), new Date(to)).map(iso)).toEqual(expected);
  });

  it("includes an occurrence that began before the range and still goes on", () => {
    expect(occurrencesBetween(sundays, new Date("2026-03-08T01:30:00Z"), new Date("2026-03-08T01:31:00Z")).map(iso)).toEqual([["2026-03-08T01:00:00.000Z", "2026-03-08T02:00:00.000Z"]]);
  });

  it("is in maintenance from the start (included) to the end (excluded)", () => {
    expect(inMaintenance([sundays], new Date("2026-03-08T00:59:59.999Z"))).toBe(false);
    expect(inMaintenance([sundays], new Date("2026-03-08T01:00:00Z"))).toBe(true);
    expect(inMaintenance([sundays], new Date("2026-03-08T01:59:59.999Z"))).toBe(true);
    expect(inMaintenance([sundays], new Date("2026-03-08T02:00:00Z"))).toBe(false);
    expect(inMaintenance([sundays], new Date("2026-04-05T00:30:00Z"))).toBe(true);
    expect(inMaintenance([], new Date("2026-04-05T00:30:00Z"))).toBe(false);
  });

  it("answers many times of a batch as inMaintenance does, each window expanded once", () => {
    const test = maintenanceTimes([sundays], new Date("2026-03-08T00:00:00Z"), new Date("2026-03-15T03:00:00Z"));
    for (const at of ["2026-03-08T00:59:59.999Z", "2026-03-08T01:00:00Z", "2026-03-08T01:59:59.999Z", "2026-03-08T02:00:00Z", "2026-03-11T01:30:00Z", "2026-03-15T01:30:00Z"]) {
      expect([at, test(new Date(at))]).toEqual([at, inMaintenance([sundays], new Date(at))]);
    }
    expect(maintenanceTimes([], new Date(0), new Date())(new Date())).toBe(false);
  });

  it("lists the next occurrences, the first going on", () => {
    expect(nextOccurrences(sundays, new Date("2026-03-15T01:10:00Z"), 2).map(iso)).toEqual([
      ["2026-03-15T01:00:00.000Z", "2026-03-15T02:00:00.000Z"],
      ["2026-03-22T01:00:00.000Z", "2026-03-22T02:00:00.000Z"],
    ]);
    expect(nextOccurrences({ ...sundays, recurrence: "" }, new Date("2026-03-01T02:00:00Z"))).toEqual([]);
  });
});

describe("maintenance rules", () => {
  const valid = { title: "DB upgrade", startsAt: new Date("2026-03-01T01:00:00Z"), endsAt: new Date("2026-03-01T02:00:00Z"), monitorIds: ["m1"] };
  const violations = (input: object) => {
    try {
      parseMaintenance({ ...valid, ...input });
      return [];
    } catch (error) {
      return (error as ValidationError).violations.map((v) => `${v.field}: ${v.rule}`);
    }
  };

  it("takes a valid window with its defaults", () => {
    expect(parseMaintenance(valid)).toEqual({ ...valid, message: "", recurrence: "", timezone: "UTC", pageComponentIds: [] });
  });

  it.each([
    ["an unknown part", "FREQ=WEEKLY;FOO=1", /FOO is not a rule part/],
    ["a bad BYDAY", "FREQ=WEEKLY;BYDAY=XX", /Invalid BYDAY value: XX/],
    ["no FREQ", "BYDAY=SU", /with FREQ/],
    ["a frequency finer than a day", "FREQ=HOURLY", /must have FREQ DAILY, WEEKLY, MONTHLY, YEARLY/],
    ["a DTSTART", "DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY", /without DTSTART/],
    ["a date-only UNTIL", "FREQ=DAILY;UNTIL=20260310", /UNTIL/],
  ])("refuses an RRULE with %s, naming the field", (_, recurrence, rule) => {
    const found = violations({ recurrence });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^maintenance\.recurrence: must/);
    expect(found[0]).toMatch(rule);
    expect(recurrenceProblem(recurrence)).not.toBeNull();
  });

  it("refuses an end not after the start, a window over 31 days, a zone that is none, and naming nothing", () => {
    expect(violations({ endsAt: valid.startsAt })).toEqual(["maintenance.endsAt: must be after startsAt"]);
    expect(violations({ endsAt: new Date(valid.startsAt.getTime() + 31 * 86_400_000) })).toEqual([]);
    expect(violations({ endsAt: new Date(valid.startsAt.getTime() + 31 * 86_400_000 + 1) })).toEqual(["maintenance.endsAt: must be at most 31 days after startsAt"]);
    expect(violations({ timezone: "Mars/Olympus" })).toEqual(["maintenance.timezone: must be an IANA time zone, e.g. UTC or Europe/Paris"]);
    expect(violations({ monitorIds: [] })).toEqual(["maintenance.monitorIds: a window names at least one monitor or page component"]);
    expect(violations({ monitorIds: [], pageComponentIds: ["c1"] })).toEqual([]);
    expect(violations({ startsAt: undefined })).toEqual(["maintenance.startsAt: is required"]);
  });

  it("limits the title, the RRULE's text and the lists, on both sides", () => {
    expect(violations({ title: "t".repeat(256) })).toEqual([]);
    expect(violations({ title: "t".repeat(257) })).toEqual(["maintenance.title: must be at most 256 characters"]);
    // "FREQ=DAILY;INTERVAL=" is 20 characters; leading zeros keep the interval 1.
    expect(violations({ recurrence: `FREQ=DAILY;INTERVAL=${"0".repeat(479)}1` })).toEqual([]);
    expect(violations({ recurrence: `FREQ=DAILY;INTERVAL=${"0".repeat(480)}1` })).toContain("maintenance.recurrence: must be at most 500 characters");
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `m${i}`);
    expect(violations({ monitorIds: ids(100) })).toEqual([]);
    expect(violations({ monitorIds: ids(101) })).toEqual(["maintenance.monitorIds: must have at most 100 entries"]);
    expect(violations({ pageComponentIds: ids(101) })).toEqual(["maintenance.pageComponentIds: must have at most 100 entries"]);
    expect(violations({ monitorIds: ["m1", "m1"] })).toEqual(["maintenance.monitorIds[1]: must not repeat m1"]);
  });
});
