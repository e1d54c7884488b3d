import { eventOfTransition, isStale, monitorStatusFromRegions, parseQuorumRule, quorumSize, regionStatusOf, type RegionVerdict } from "../src";

describe("quorum size", () => {
  // The table in docs/alerting.md.
  it.each([
    [1, 1, 1, 1],
    [2, 1, 2, 2],
    [3, 2, 2, 3],
    [4, 2, 3, 4],
    [5, 3, 3, 5],
    [28, 14, 15, 28],
  ])("%i checked regions: half %i, majority %i, all %i", (n, half, majority, all) => {
    expect(quorumSize("half", n)).toBe(half);
    expect(quorumSize("majority", n)).toBe(majority);
    expect(quorumSize("all", n)).toBe(all);
  });

  it("takes a number of regions, capped at the regions checked and at least one", () => {
    expect(quorumSize(2, 5)).toBe(2);
    expect(quorumSize(3, 2)).toBe(2);
    expect(quorumSize("half", 0)).toBe(1);
  });

  it("parses the ALERT_QUORUM setting", () => {
    expect(parseQuorumRule("half")).toBe("half");
    expect(parseQuorumRule(" Majority ")).toBe("majority");
    expect(parseQuorumRule("all")).toBe("all");
    expect(parseQuorumRule("2")).toBe(2);
    for (const bad of ["", "0", "-1", "most", "1.5"]) expect(parseQuorumRule(bad)).toBeNull();
  });
});

describe("monitor-level status from its regions (default quorum: at least half)", () => {
  const status = (verdicts: RegionVerdict[], previous = "active" as const) => monitorStatusFromRegions(verdicts, "half", previous);

  // Each row of the examples table in docs/alerting.md.
  it.each<[RegionVerdict[], string]>([
    [["error"], "error"],
    [["degraded"], "degraded"],
    [["active"], "active"],
    [["error", "active"], "error"],
    [["degraded", "active"], "degraded"],
    [["error", "degraded"], "error"],
    [["error", "active", "active"], "active"],
    [["error", "degraded", "active"], "degraded"],
    [["error", "error", "active"], "error"],
    [["error", "error", "active", "active"], "error"],
    [["error", "active", "active", "active"], "active"],
    [["error", "degraded", "active", "active"], "degraded"],
    [["error", "error", "active", "active", "active"], "active"],
    [["error", "error", "error", "active", "active"], "error"],
    [["error", "error", "degraded", "active", "active"], "degraded"],
  ])("%j is %s", (verdicts, expected) => {
    expect(status(verdicts)).toBe(expected);
  });

  it("is unknown before results decide it", () => {
    expect(monitorStatusFromRegions(["unknown"], "half", "unknown")).toBe("unknown");
    expect(monitorStatusFromRegions(["error", "unknown", "unknown", "unknown"], "half", "unknown")).toBe("unknown");
    expect(monitorStatusFromRegions(["active", "unknown"], "half", "unknown")).toBe("unknown");
    expect(monitorStatusFromRegions(["active", "active", "unknown"], "half", "unknown")).toBe("active");
  });

  it("lets stale regions count neither toward failure nor toward recovery", () => {
    // Two failing regions' agents vanish: the two healthy ones cannot recover the monitor alone.
    expect(monitorStatusFromRegions(["unknown", "unknown", "active", "active"], "half", "error")).toBe("error");
    // ... nor can two stale regions fail a healthy one.
    expect(monitorStatusFromRegions(["unknown", "unknown", "active", "active"], "half", "active")).toBe("active");
    // Known regions that decide alone still do: one failing region of two is the quorum.
    expect(monitorStatusFromRegions(["error", "unknown"], "half", "active")).toBe("error");
    expect(monitorStatusFromRegions(["unknown", "unknown"], "half", "error")).toBe("error");
  });

  it("follows a stricter deployment setting", () => {
    expect(monitorStatusFromRegions(["error", "active"], "majority", "active")).toBe("active");
    expect(monitorStatusFromRegions(["error", "error"], "majority", "active")).toBe("error");
    expect(monitorStatusFromRegions(["error", "error", "active"], "all", "active")).toBe("active");
  });
});

describe("stale regions", () => {
  it("are stale after three periods without a result", () => {
    const last = new Date("2026-01-01T00:00:00Z");
    expect(isStale(last, new Date("2026-01-01T00:03:00Z"), 60_000)).toBe(false);
    expect(isStale(last, new Date("2026-01-01T00:03:00.001Z"), 60_000)).toBe(true);
  });
});

describe("events of transitions", () => {
  it.each([
    ["active", "error", "monitor.failed"],
    ["unknown", "error", "monitor.failed"],
    ["degraded", "error", "monitor.failed"],
    ["active", "degraded", "monitor.degraded"],
    ["error", "degraded", "monitor.degraded"],
    ["error", "active", "monitor.recovered"],
    ["degraded", "active", "monitor.recovered"],
    ["unknown", "active", null],
    ["active", "active", null],
    ["error", "error", null],
  ] as const)("%s -> %s is %s", (from, to, event) => {
    expect(eventOfTransition(from, to)).toBe(event);
  });

  it("makes a region active after a success", () => {
    expect(regionStatusOf("success")).toBe("active");
    expect(regionStatusOf("error")).toBe("error");
  });
});
