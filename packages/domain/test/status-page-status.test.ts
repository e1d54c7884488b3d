import {
  COMPONENT_STATUSES,
  DEGRADED_SLOW_SHARE,
  OUTAGE_FAILED_SHARE,
  componentStatusOf,
  dayStatusOf,
  pageStatusOf,
  uptimePercent,
  type ComponentStatus,
} from "../src";

// Each table follows its namesake in docs/status-pages.md, row by row.

describe("a monitor component's status", () => {
  it.each([
    ["error", "all of them in error", ["error", "error"], "major_outage"],
    ["error", "all of them in error, others undecided", ["error", "unknown"], "major_outage"],
    ["error", "none decided", ["unknown"], "major_outage"],
    ["error", "some not in error", ["error", "active"], "partial_outage"],
    ["error", "some degraded", ["error", "degraded"], "partial_outage"],
    ["degraded", "any", ["degraded", "active"], "degraded_performance"],
    ["degraded", "none", [], "degraded_performance"],
    ["active", "failing regions below the quorum", ["error", "active", "active"], "operational"],
    ["active", "all active", ["active"], "operational"],
    ["unknown", "none decided", ["unknown"], "operational"],
    ["unknown", "none", [], "operational"],
  ] as const)("monitor %s, regions: %s (%j) → %s", (monitor, _rows, regions, expected) => {
    expect(componentStatusOf(monitor, regions)).toBe(expected);
  });
});

describe("the page's overall status", () => {
  const none = { indicator: "none", description: "All Systems Operational" };
  const minor = { indicator: "minor", description: "Degraded System Performance" };
  const major = { indicator: "major", description: "Partial System Outage" };
  const critical = { indicator: "critical", description: "Major System Outage" };

  it.each([
    ["no components", [], none],
    ["all operational", ["operational", "operational"], none],
    ["worst is degraded_performance", ["operational", "degraded_performance"], minor],
    ["some partial_outage", ["operational", "partial_outage"], major],
    ["some major_outage, not all", ["major_outage", "operational"], major],
    ["partial and major outages", ["major_outage", "partial_outage"], major],
    ["a degraded and a major outage", ["major_outage", "degraded_performance"], major],
    ["every component major_outage", ["major_outage", "major_outage"], critical],
    ["the only component major_outage", ["major_outage"], critical],
    ["some under_maintenance, the others operational", ["operational", "under_maintenance"], { indicator: "none", description: "Service Under Maintenance" }],
    ["under_maintenance beside a degraded one", ["under_maintenance", "degraded_performance"], minor],
  ] as [string, ComponentStatus[], object][])("%s", (_case, components, expected) => {
    expect(pageStatusOf(components)).toEqual(expected);
  });

  it("knows Statuspage's five component statuses, best first", () => {
    expect(COMPONENT_STATUSES).toEqual(["operational", "under_maintenance", "degraded_performance", "partial_outage", "major_outage"]);
  });
});

describe("a day of the 90-day bar", () => {
  it("uses the documented thresholds", () => {
    expect(OUTAGE_FAILED_SHARE).toBe(0.01);
    expect(DEGRADED_SLOW_SHARE).toBe(0.05);
  });

  it.each([
    ["no checks", { successful: 0, degraded: 0, failed: 0 }, "no_data"],
    ["1 % failed exactly", { successful: 99, degraded: 0, failed: 1 }, "outage"],
    ["more than 1 % failed", { successful: 5, degraded: 5, failed: 1 }, "outage"],
    ["just under 1 % failed", { successful: 100, degraded: 0, failed: 1 }, "degraded"],
    ["5 % slow exactly, none failed", { successful: 95, degraded: 5, failed: 0 }, "degraded"],
    ["just under 5 % slow, none failed", { successful: 96, degraded: 5, failed: 0 }, "operational"],
    ["every check fine", { successful: 10, degraded: 0, failed: 0 }, "operational"],
  ] as const)("%s: %j → %s", (_case, day, expected) => {
    expect(dayStatusOf(day)).toBe(expected);
  });

  it("counts the share of checks that did not fail as uptime", () => {
    expect(uptimePercent({ successful: 0, degraded: 0, failed: 0 })).toBeNull();
    expect(uptimePercent({ successful: 98, degraded: 1, failed: 1 })).toBe(99);
    expect(uptimePercent({ successful: 0, degraded: 4, failed: 0 })).toBe(100);
    expect(uptimePercent({ successful: 0, degraded: 0, failed: 3 })).toBe(0);
  });
});
