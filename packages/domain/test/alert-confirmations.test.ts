import {
  LIMITS,
  ValidationError,
  monitorQuorum,
  monitorStatusFromRegions,
  nextRegionCount,
  parseAlertQuorum,
  parseMonitorConfig,
  type Confirmations,
  type RegionCount,
} from "../src";

type Check = "success" | "degraded" | "error";

/** The region's status after each of `checks`, from a region never checked. */
function run(checks: Check[], rules: Confirmations): RegionCount["status"][] {
  let region: RegionCount | undefined;
  return checks.map((check) => (region = nextRegionCount(region, check, rules)).status);
}

const E = "error" as const;
const S = "success" as const;
const D = "degraded" as const;

describe("a region's confirmations (the table in docs/alerting.md)", () => {
  it.each<[string, Check[], Confirmations, RegionCount["status"][]]>([
    ["with 1 and 1 (the defaults) every check moves its region", [E, S, D, E, D], { confirmations: 1, recoveryConfirmations: 1 }, ["error", "active", "degraded", "error", "degraded"]],
    ["3 confirmations: fails on the 3rd failing check in a row", [E, E, E], { confirmations: 3, recoveryConfirmations: 1 }, ["active", "active", "error"]],
    ["3 confirmations: a good check in between starts the count again", [E, E, S, E, E, E], { confirmations: 3, recoveryConfirmations: 1 }, ["active", "active", "active", "active", "active", "error"]],
    ["3 confirmations: a degraded check moves a healthy region at once and breaks the run", [E, D, E, E, E], { confirmations: 3, recoveryConfirmations: 1 }, ["active", "degraded", "degraded", "degraded", "error"]],
    ["2 recovery confirmations: recovers on the 2nd good check in a row", [E, S, S], { confirmations: 1, recoveryConfirmations: 2 }, ["error", "error", "active"]],
    ["2 recovery confirmations: a failing check in between starts the count again", [E, S, E, S, S], { confirmations: 1, recoveryConfirmations: 2 }, ["error", "error", "error", "error", "active"]],
    ["degraded checks count toward recovery, which ends as the last said", [E, D, S, D], { confirmations: 1, recoveryConfirmations: 3 }, ["error", "error", "error", "degraded"]],
    ["both: 2 to fail, 2 to recover", [E, E, S, E, S, S], { confirmations: 2, recoveryConfirmations: 2 }, ["active", "error", "error", "error", "error", "active"]],
  ])("%s", (_name, checks, rules, expected) => {
    expect(run(checks, rules)).toEqual(expected);
  });

  it("keeps the run of unconfirmed checks, and none once a region moved", () => {
    const rules = { confirmations: 3, recoveryConfirmations: 2 };
    expect(nextRegionCount(undefined, E, rules)).toEqual({ status: "active", streak: 1 });
    expect(nextRegionCount({ status: "active", streak: 2 }, E, rules)).toEqual({ status: "error", streak: 0 });
    expect(nextRegionCount({ status: "error", streak: 0 }, S, rules)).toEqual({ status: "error", streak: 1 });
    expect(nextRegionCount({ status: "error", streak: 1 }, E, rules)).toEqual({ status: "error", streak: 0 });
  });
});

describe("a monitor's alertQuorum", () => {
  it("takes the deployment's forms as they print, or empty for the deployment's", () => {
    expect(parseAlertQuorum("")).toBe("");
    expect(parseAlertQuorum("half")).toBe("half");
    expect(parseAlertQuorum("majority")).toBe("majority");
    expect(parseAlertQuorum("all")).toBe("all");
    expect(parseAlertQuorum("3")).toBe(3);
    for (const bad of ["0", "-1", "03", " half", "Half", "most", "1.5", "1000"]) expect(parseAlertQuorum(bad)).toBeNull();
  });

  it("overrides the deployment's ALERT_QUORUM unless empty", () => {
    expect(monitorQuorum("", "majority")).toBe("majority");
    expect(monitorQuorum("all", "half")).toBe("all");
    expect(monitorQuorum("2", "half")).toBe(2);
  });

  // Three regions: "half" (the deployment's here) needs 2 of them.
  it.each<[string, string, string]>([
    ["", "active", "error"],
    ["half", "active", "error"],
    ["majority", "active", "error"],
    ["1", "error", "error"],
    ["3", "active", "active"],
    ["all", "active", "active"],
  ])("alertQuorum %j: 1 of 3 regions failing is %s, 2 of 3 %s", (alertQuorum, oneFailing, twoFailing) => {
    const rule = monitorQuorum(alertQuorum, "half");
    expect(monitorStatusFromRegions(["error", "active", "active"], rule, "active")).toBe(oneFailing);
    expect(monitorStatusFromRegions(["error", "error", "active"], rule, "active")).toBe(twoFailing);
  });
});

describe("validation of the alerting fields", () => {
  const tcp = (fields: Record<string, unknown>) => parseMonitorConfig("tcp", { name: "db", uri: "db.example.com:5432", periodicity: "1m", ...fields });
  const refusal = (fields: Record<string, unknown>) => {
    try {
      tcp(fields);
    } catch (error) {
      if (error instanceof ValidationError) return error.message;
      throw error;
    }
    throw new Error("accepted");
  };

  it("defaults to the deployment's quorum and one confirmation each way", () => {
    expect(tcp({})).toMatchObject({ alertQuorum: "", confirmations: 1, recoveryConfirmations: 1 });
  });

  it("accepts each form, and a number up to the monitor's regions", () => {
    for (const alertQuorum of ["half", "majority", "all"]) expect(tcp({ alertQuorum }).alertQuorum).toBe(alertQuorum);
    expect(tcp({ alertQuorum: "2", regions: ["hostA-ams", "hostB-fra"] }).alertQuorum).toBe("2");
    // Without regions of its own the deployment's apply, which may change: capped, not refused.
    expect(tcp({ alertQuorum: "5" }).alertQuorum).toBe("5");
  });

  it("refuses other words, 0, and a number above the monitor's regions, naming the field", () => {
    expect(refusal({ alertQuorum: "most" })).toMatch(/monitor\.alertQuorum: must be "half", "majority", "all" or a number/);
    expect(refusal({ alertQuorum: "0" })).toMatch(/monitor\.alertQuorum/);
    expect(refusal({ alertQuorum: "3", regions: ["hostA-ams", "hostB-fra"] })).toMatch(
      /monitor\.alertQuorum: must be at most the number of the monitor's regions \(2\), not 3/,
    );
  });

  it.each(["confirmations", "recoveryConfirmations"])("refuses %s outside 1 to the limit", (field) => {
    expect(tcp({ [field]: LIMITS.confirmations.max })[field as "confirmations"]).toBe(LIMITS.confirmations.max);
    for (const bad of [0, LIMITS.confirmations.max + 1, 1.5]) {
      expect(refusal({ [field]: bad })).toContain(`monitor.${field}: must be an integer from 1 to ${LIMITS.confirmations.max}`);
    }
  });
});
