import { BURN_RATE_RULE, BURN_RATE_WINDOWS_MS, SLO, budgetRemainingPercent, burnRate, burnRateAlerting, isObjectivePercent, parseMonitorConfig, sliPercent } from "../src";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe("objective percents", () => {
  it.each([
    [0, true],
    [50, true],
    [49.999, false],
    [99.9, true],
    [99.999, true],
    [99.9991, false],
    [100, false],
    [-50, false],
    [Number.NaN, false],
  ])("%p is an objective: %p", (value, ok) => {
    expect(isObjectivePercent(value)).toBe(ok);
  });
});

describe("the objective fields of a monitor", () => {
  const tcp = (fields: Record<string, unknown>) => () => parseMonitorConfig("tcp", { name: "t", uri: "example.com:1", periodicity: "1m", ...fields });
  it("default to none and go together for latency", () => {
    expect(tcp({})()).toMatchObject({ availabilityObjective: 0, latencyObjectiveMs: 0, latencyObjectivePercent: 0 });
    expect(tcp({ latencyObjectiveMs: 1, latencyObjectivePercent: 50 })()).toMatchObject({ latencyObjectiveMs: 1, latencyObjectivePercent: 50 });
    expect(tcp({ latencyObjectiveMs: 120_000, latencyObjectivePercent: 99.999 })()).toMatchObject({ latencyObjectiveMs: 120_000 });
    expect(tcp({ latencyObjectiveMs: 120_001, latencyObjectivePercent: 99 })).toThrow("monitor.latencyObjectiveMs: must be 0 (no objective) or an integer from 1 to 120000");
    expect(tcp({ latencyObjectiveMs: 1.5, latencyObjectivePercent: 99 })).toThrow("monitor.latencyObjectiveMs: must be 0");
    expect(tcp({ latencyObjectiveMs: 500 })).toThrow("monitor.latencyObjectivePercent: must be set (not 0) when latencyObjectiveMs is");
    expect(tcp({ latencyObjectivePercent: 90 })).toThrow("monitor.latencyObjectiveMs: must be set (not 0) when latencyObjectivePercent is");
    expect(tcp({ availabilityObjective: "99.9" })).toThrow("monitor.availabilityObjective: must be a number");
  });
});

describe("budget and burn rate", () => {
  it.each([
    // objective, good, total, sli, budget left, burn rate
    [99.9, 1000, 1000, 100, 100, 0],
    [99.9, 999, 1000, 99.9, 0, 1],
    [99.9, 9995, 10_000, 99.95, 50, 0.5],
    [99, 980, 1000, 98, -100, 2],
    [95, 0, 10, 0, -1900, 20],
  ])("objective %p with %p good of %p: %p %%, budget %p %% left, burn rate %p", (objective, good, total, sli, left, rate) => {
    expect(sliPercent({ good, total })).toBeCloseTo(sli, 9);
    expect(budgetRemainingPercent(objective, { good, total })).toBeCloseTo(left, 6);
    expect(burnRate(objective, { good, total })).toBeCloseTo(rate, 6);
  });

  it("has no figures without checks", () => {
    expect([sliPercent({ good: 0, total: 0 }), budgetRemainingPercent(99, { good: 0, total: 0 }), burnRate(99, { good: 0, total: 0 })]).toEqual([null, null, null]);
  });
});

describe("the multi-window, multi-burn-rate alert rule", () => {
  it("pairs 1 h with 5 min at 14.4 and 6 h with 30 min at 6 (the SRE workbook's page rules), over a 30-day window", () => {
    expect(BURN_RATE_RULE).toEqual([
      { longMs: HOUR, shortMs: 5 * MINUTE, factor: 14.4 },
      { longMs: 6 * HOUR, shortMs: 30 * MINUTE, factor: 6 },
    ]);
    expect(BURN_RATE_WINDOWS_MS).toEqual([6 * HOUR, HOUR, 30 * MINUTE, 5 * MINUTE]);
    expect(SLO.windowDays).toBe(30);
  });

  /** Counts whose burn rate at objective 99 % is `rates[window]` (bad per 1000 checks / 10). */
  const burning = (rates: Record<number, number>) => (windowMs: number) => ({ good: 1000 - Math.round((rates[windowMs] ?? 0) * 10), total: 1000 });

  it.each([
    ["a fast burn over both 1 h and 5 min", { [HOUR]: 14.4, [5 * MINUTE]: 14.4 }, true],
    ["just under 14.4 over the hour", { [HOUR]: 14.3, [5 * MINUTE]: 50 }, false],
    ["a fast hour that has stopped (the last 5 min are clean)", { [HOUR]: 20, [5 * MINUTE]: 0 }, false],
    ["a blip: 5 min only", { [5 * MINUTE]: 100 }, false],
    ["a steady burn over both 6 h and 30 min", { [6 * HOUR]: 6, [30 * MINUTE]: 6 }, true],
    ["just under 6 over 6 h", { [6 * HOUR]: 5.9, [30 * MINUTE]: 10 }, false],
    ["a slow burn: 2 everywhere (a budget spent in 15 days)", { [6 * HOUR]: 2, [HOUR]: 2, [30 * MINUTE]: 2, [5 * MINUTE]: 2 }, false],
  ])("%s: %p alerts %p", (_, rates, alerts) => {
    expect(burnRateAlerting(99, burning(rates))).toBe(alerts);
  });

  it("does not alert on windows without checks", () => {
    expect(burnRateAlerting(99.9, () => ({ good: 0, total: 0 }))).toBe(false);
  });
});
