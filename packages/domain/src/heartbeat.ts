import { Cron } from "croner";
import { z } from "zod";
import { formatTime } from "./durations";
import { DEFAULTS, LIMITS } from "./limits";
import { boolean, integer, readableText, requiredLine, text } from "./rules";
import { parseOrThrow } from "./validation";
import { dependsOnField } from "./dependencies";

/**
 * Heartbeat (push) monitors: a job pings Vigil and silence is the failure (docs/checks.md "Heartbeats").
 * Nothing here needs Node: the console validates its form with the same schema.
 */

/** Whether the runtime knows an IANA time zone by this name. */
export function isTimeZone(name: string): boolean {
  if (name === "") return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** An IANA time zone's name, as heartbeats' cron and maintenance windows' recurrence take it. */
export const timeZone = () => text(LIMITS.timezoneMaxChars).refine(isTimeZone, "must be an IANA time zone, e.g. UTC or Europe/Paris");

/** Why a cron expression cannot be used (croner's reason), or null when it can. */
export function cronProblem(expression: string, timezone: string): string | null {
  try {
    // paused: only parsed, never run.
    const cron = new Cron(expression, { timezone, paused: true });
    return cron.nextRun() === null ? "must name a time that comes again" : null;
  } catch (error) {
    return `must be a cron expression of 5 or 6 fields (${(error as Error).message})`;
  }
}

/** The rule between a schedule's fields (a vigil.yaml entry checks it too, to name its line). */
export function heartbeatScheduleRule(
  config: { periodSeconds?: number | null | undefined; cron: string; timezone: string },
  ctx: { addIssue: (issue: { code: "custom"; path: string[]; message: string }) => void },
): void {
  if (config.cron === "") return;
  // Two schedules at once would leave it unsaid which one silence is measured against.
  if (config.periodSeconds != null) {
    ctx.addIssue({ code: "custom", path: ["cron"], message: "must be empty when periodSeconds is given: a monitor has a period or a cron expression, not both" });
    return;
  }
  const problem = isTimeZone(config.timezone) ? cronProblem(config.cron, config.timezone) : null;
  if (problem) ctx.addIssue({ code: "custom", path: ["cron"], message: problem });
}

export const heartbeatMonitorSchema = z
  .object({
    name: requiredLine(LIMITS.nameMaxChars),
    periodSeconds: integer(LIMITS.heartbeatPeriodSeconds).nullable().optional(),
    cron: text(LIMITS.cronMaxChars).default(""),
    timezone: timeZone().default(DEFAULTS.timezone),
    graceSeconds: integer(LIMITS.heartbeatGraceSeconds).default(DEFAULTS.heartbeatGraceSeconds),
    description: readableText(LIMITS.descriptionMaxChars).default(DEFAULTS.description),
    active: boolean().default(DEFAULTS.active),
    public: boolean().default(DEFAULTS.public),
    dependsOn: dependsOnField(),
  })
  .superRefine(heartbeatScheduleRule)
  .transform(({ periodSeconds, ...config }) => ({
    ...config,
    /** null with a cron expression. */
    periodSeconds: config.cron === "" ? (periodSeconds ?? DEFAULTS.heartbeatPeriodSeconds) : null,
  }));

export type HeartbeatMonitorConfig = z.output<typeof heartbeatMonitorSchema>;

/** The configuration fields of a heartbeat monitor, as the API spells them. */
export const HEARTBEAT_FIELDS = Object.keys(heartbeatMonitorSchema.in.shape) as (keyof HeartbeatMonitorConfig)[];

/**
 * Validates a whole heartbeat configuration and fills in every default (a create, or an update on the stored
 * configuration merged with the changes).
 * @throws ValidationError naming each field under `monitor.`
 */
export function parseHeartbeatConfig(input: Record<string, unknown>): HeartbeatMonitorConfig {
  return parseOrThrow(heartbeatMonitorSchema, input, "monitor");
}

/**
 * An update's changes merged into the stored configuration. The schedule is one thing with two forms: naming one
 * form replaces the other, unless the update names both (then both are checked as sent).
 */
export function mergeHeartbeatChanges(current: HeartbeatMonitorConfig, changes: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current, ...changes };
  const namesPeriod = "periodSeconds" in changes;
  const namesCron = "cron" in changes;
  if (namesCron && !namesPeriod && changes.cron) merged.periodSeconds = null;
  if (namesPeriod && !namesCron) merged.cron = "";
  return merged;
}

/**
 * When a heartbeat monitor whose last success (or, without one, whose start of watching) was at `since` fails
 * for silence: the period after it, or the cron expression's next time after it, plus the grace.
 */
export function heartbeatDeadline(config: HeartbeatMonitorConfig, since: Date): Date {
  const graceMs = config.graceSeconds * 1000;
  if (config.periodSeconds !== null) return new Date(since.getTime() + config.periodSeconds * 1000 + graceMs);
  const next = new Cron(config.cron, { timezone: config.timezone, paused: true }).nextRun(since);
  // The schema refuses expressions without a next time; one that ran out since (a year field) never fails again.
  return next === null ? new Date(8.64e15) : new Date(next.getTime() + graceMs);
}

/**
 * What the alert and the incident of a silent heartbeat say (reason `silence`): when its last success came (or, without
 * one, since when it was watched) and the deadline it missed.
 */
export function silenceError(lastSuccessAt: Date | null, watchedSince: Date, deadline: Date): string {
  const since = lastSuccessAt ? `no ping since ${formatTime(lastSuccessAt)}` : `no ping yet (watched since ${formatTime(watchedSince)})`;
  return `${since}, expected by ${formatTime(deadline)}`;
}

/** The error of a heartbeat failed by its job's own ping: /fail (no code) or /<exit code>. */
export const failurePingError = (exitCode: number | null): string =>
  exitCode === null ? "the job reported a failure" : `the job exited with code ${exitCode}`;

/** What a ping says, from the path after its token: nothing (success), `start`, `fail`, or an exit code (0 is a success). */
export const PING_KINDS = ["success", "start", "fail"] as const;
export type PingKind = (typeof PING_KINDS)[number];

/** The kind and exit code of a ping's path suffix, or null when the suffix is none of them (not found). */
export function parsePingSuffix(suffix: string): { kind: PingKind; exitCode: number | null } | null {
  if (suffix === "") return { kind: "success", exitCode: null };
  if (suffix === "start") return { kind: "start", exitCode: null };
  if (suffix === "fail") return { kind: "fail", exitCode: null };
  if (!/^\d{1,3}$/.test(suffix)) return null;
  const exitCode = Number(suffix);
  if (exitCode > 255) return null;
  return { kind: exitCode === 0 ? "success" : "fail", exitCode };
}

/** A ping token: 32 characters of base64url (24 random bytes), made by the control plane. */
export const isPingToken = (token: string): boolean => /^[A-Za-z0-9_-]{32}$/.test(token);

/** A monitor's ping URL under the deployment's public URL. */
export const pingUrlOf = (publicUrl: string, token: string): string => `${publicUrl.replace(/\/+$/, "")}/v1/ping/${token}`;
