import { z } from "zod";
import { LIMITS } from "./limits";
import { typed } from "./rules";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Service level objectives of a monitor (docs/alerting.md "SLOs"): the share of its checks that must
 * not fail (availabilityObjective), and the share of its answered checks that must take at most
 * latencyObjectiveMs (latencyObjectivePercent), over a rolling window of SLO.windowDays UTC days.
 */
export const SLO = {
  /** The window the figures cover: today (UTC) and the 29 days before it. */
  windowDays: 30,
  /** An objective in percent: 0 is none; below 50 % an objective says nothing, above 99.999 % no check interval can tell. */
  objectivePercent: { min: 50, max: 99.999 },
  /** At most three decimals (99.995), so that the budget is not an artefact of a float. */
  objectiveDecimals: 3,
  latencyObjectiveMs: { min: 1, max: LIMITS.timeoutMs.max },
} as const;

const PERCENT_RULE = `must be 0 (no objective) or a percent from ${SLO.objectivePercent.min} to ${SLO.objectivePercent.max} with at most ${SLO.objectiveDecimals} decimals`;

const hasDecimalsAtMost = (value: number, decimals: number) => {
  const scaled = value * 10 ** decimals;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6;
};

/** A percent objective: 0 (none), or SLO.objectivePercent with at most SLO.objectiveDecimals decimals. */
export const isObjectivePercent = (value: number): boolean =>
  value === 0 || (value >= SLO.objectivePercent.min && value <= SLO.objectivePercent.max && hasDecimalsAtMost(value, SLO.objectiveDecimals));

const objectivePercent = () => z.number(typed("a number")).refine(isObjectivePercent, PERCENT_RULE);

const LATENCY_MS_RULE = `must be 0 (no objective) or an integer from ${SLO.latencyObjectiveMs.min} to ${SLO.latencyObjectiveMs.max}`;
const latencyObjectiveMs = () =>
  z.number(typed("an integer")).refine((value) => value === 0 || (Number.isInteger(value) && value >= SLO.latencyObjectiveMs.min && value <= SLO.latencyObjectiveMs.max), LATENCY_MS_RULE);

/** The objective fields of every monitor kind that stores results, 0 (none) by default. */
export const objectiveFields = {
  availabilityObjective: objectivePercent().default(0),
  latencyObjectiveMs: latencyObjectiveMs().default(0),
  latencyObjectivePercent: objectivePercent().default(0),
};

export interface Objectives {
  availabilityObjective: number;
  latencyObjectiveMs: number;
  latencyObjectivePercent: number;
}

/** A latency objective is a threshold and a share: one without the other says nothing. Checked on an update's merged configuration too. */
export function objectivesRule(config: Objectives, ctx: z.core.$RefinementCtx): void {
  if ((config.latencyObjectiveMs === 0) !== (config.latencyObjectivePercent === 0)) {
    const missing = config.latencyObjectiveMs === 0 ? "latencyObjectiveMs" : "latencyObjectivePercent";
    const other = missing === "latencyObjectiveMs" ? "latencyObjectivePercent" : "latencyObjectiveMs";
    ctx.addIssue({ code: "custom", path: [missing], message: `must be set (not 0) when ${other} is: a latency objective is a threshold and a percent of checks under it` });
  }
}

/** Checks counted towards an objective: those that met it (good) of those it applies to (total). */
export interface SliCounts {
  good: number;
  total: number;
}

/** The good share in %, null without checks. */
export function sliPercent({ good, total }: SliCounts): number | null {
  return total === 0 ? null : (100 * good) / total;
}

/**
 * How much of the error budget is left, in % of the budget: 100 with no bad check, 0 when the bad
 * share equals what the objective allows, negative past it: the window's burn rate is the share of its budget spent. Null without checks.
 */
export function budgetRemainingPercent(objective: number, { good, total }: SliCounts): number | null {
  if (total === 0) return null;
  return 100 * (1 - (burnRate(objective, { good, total }) ?? 0));
}

/**
 * How fast a window spends the budget: its bad share over the share the objective allows. 1 spends
 * exactly the budget over the SLO window; 14.4 spends 2 % of a 30-day budget in an hour. Null without checks.
 * The allowed share is counted in thousandths of a percent, which an objective's three decimals make whole,
 * so that 100 - 99 allows 0.01 and not 0.010000000000000009 (a burn of exactly 6 would read as just under it).
 */
export function burnRate(objective: number, { good, total }: SliCounts): number | null {
  if (total === 0) return null;
  return ((total - good) * 100_000) / (total * Math.round((100 - objective) * 1000));
}

/**
 * The multi-window, multi-burn-rate rule of Google's SRE workbook ("Alerting on SLOs", 6): a pair
 * alerts when both its long window and its short one burn at least `factor` times the sustainable
 * rate. The long window keeps a blip from alerting; the short one makes the alert end soon after
 * the burn stops. 14.4 over an hour spends 2 % of a 30-day budget; 6 over 6 hours, 5 %.
 */
export const BURN_RATE_RULE = [
  { longMs: HOUR_MS, shortMs: 5 * MINUTE_MS, factor: 14.4 },
  { longMs: 6 * HOUR_MS, shortMs: 30 * MINUTE_MS, factor: 6 },
] as const;

/** The windows the figures and the alert rule read, longest first. */
export const BURN_RATE_WINDOWS_MS: readonly number[] = [...new Set(BURN_RATE_RULE.flatMap((pair) => [pair.longMs, pair.shortMs]))].sort((a, b) => b - a);

/** Whether the budget burns too fast by BURN_RATE_RULE, given each window's counts (keyed by its length in ms). */
export function burnRateAlerting(objective: number, countsOf: (windowMs: number) => SliCounts): boolean {
  return BURN_RATE_RULE.some(({ longMs, shortMs, factor }) =>
    [longMs, shortMs].every((windowMs) => (burnRate(objective, countsOf(windowMs)) ?? 0) >= factor),
  );
}
