import { RRuleTemporal } from "rrule-temporal";
import { z } from "zod";
import { timeZone } from "./heartbeat";
import { DEFAULTS, LIMITS } from "./limits";
import { list, readableText, requiredLine, set, text, wellFormed } from "./rules";
import { parseOrThrow, throwViolations, type FieldViolation } from "./validation";

/**
 * Maintenance windows (docs/alerting.md "Maintenance"): once, or recurring by
 * an RFC 5545 RRULE in an IANA time zone. Nothing here needs Node: the console
 * previews occurrences with the same functions.
 */

/** Finer frequencies would make "in maintenance at t" walk thousands of occurrences from the first. */
export const MAINTENANCE_FREQUENCIES = ["DAILY", "WEEKLY", "MONTHLY", "YEARLY"] as const;

/** The occurrences a window's answer lists, and how far ahead the public page looks. */
export const MAINTENANCE_NEXT_OCCURRENCES = 5;
export const MAINTENANCE_UPCOMING_MS = 7 * 86_400_000;

export interface MaintenanceTiming {
  startsAt: Date;
  endsAt: Date;
  /** An RRULE without DTSTART; empty: once. */
  recurrence: string;
  timezone: string;
}

export interface Occurrence {
  startsAt: Date;
  endsAt: Date;
}

/** DTSTART's local form: the wall-clock time of `at` in `zone` (YYYYMMDDTHHMMSS). */
function wallClock(at: Date, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}${parts.month}${parts.day}T${parts.hour}${parts.minute}${parts.second}`;
}

function ruleOf(timing: MaintenanceTiming): RRuleTemporal {
  return new RRuleTemporal({ rruleString: `DTSTART;TZID=${timing.timezone}:${wallClock(timing.startsAt, timing.timezone)}\nRRULE:${timing.recurrence}`, strict: true });
}

/** RFC 5545's recur-rule-parts: the library takes others silently, which would hide a typo. */
const RULE_PARTS = new Set(["FREQ", "UNTIL", "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST"]);

/**
 * Why a recurrence cannot be used, or null when it can (an empty one: the
 * window happens once). Whether a rule is one does not depend on the zone it
 * is read in (UNTIL is in UTC), so this is the field's own rule.
 */
export function recurrenceProblem(recurrence: string): string | null {
  if (recurrence === "") return null;
  if (/[\r\n]|DTSTART|RRULE:/i.test(recurrence)) return "must be the rule's parts alone (FREQ=WEEKLY;BYDAY=SU), without DTSTART or an RRULE: prefix";
  const parts = recurrence.split(";").map((part) => part.split("=")[0]!.toUpperCase());
  const unknown = parts.find((name) => !RULE_PARTS.has(name));
  if (unknown !== undefined) return `must be an RFC 5545 RRULE: ${unknown || "an empty part"} is not a rule part (${[...RULE_PARTS].join(", ")})`;
  const freq = /(?:^|;)FREQ=([A-Z]+)/i.exec(recurrence)?.[1]?.toUpperCase();
  if (!freq) return "must be an RFC 5545 RRULE with FREQ, e.g. FREQ=WEEKLY;BYDAY=SU";
  if (!(MAINTENANCE_FREQUENCIES as readonly string[]).includes(freq)) return `must have FREQ ${MAINTENANCE_FREQUENCIES.join(", ")}`;
  try {
    const rule = ruleOf({ startsAt: new Date(Date.UTC(2026, 0, 1)), endsAt: new Date(Date.UTC(2026, 0, 1, 1)), recurrence, timezone: "UTC" });
    rule.all((_, i) => i < 1);
    return null;
  } catch (error) {
    return `must be an RFC 5545 RRULE: ${wellFormed(error instanceof Error ? error.message : String(error))}`;
  }
}

const date = () => z.date({ error: (issue) => (issue.input === undefined ? "is required" : "must be a time") });
const ids = (max: number) => list(text(LIMITS.idMaxChars).min(1, "must not be empty"), max).pipe(set(z.string()));

const maintenanceFields = {
  title: requiredLine(LIMITS.incidentTitleMaxChars),
  message: readableText(LIMITS.incidentMessageMaxChars),
  startsAt: date(),
  endsAt: date(),
  recurrence: text(LIMITS.maintenanceRecurrenceMaxChars).superRefine((value, ctx) => {
    const problem = recurrenceProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
  timezone: timeZone(),
  monitorIds: ids(LIMITS.maintenanceMonitors),
  pageComponentIds: ids(LIMITS.maintenanceComponents),
};

export type MaintenanceFields = { [K in keyof typeof maintenanceFields]: z.output<(typeof maintenanceFields)[K]> };

/** A new window's fields with their defaults (the console's form picks from it). */
export const maintenanceSchema = z.object({
  title: maintenanceFields.title,
  message: maintenanceFields.message.default(""),
  startsAt: maintenanceFields.startsAt,
  endsAt: maintenanceFields.endsAt,
  recurrence: maintenanceFields.recurrence.default(""),
  timezone: maintenanceFields.timezone.default(DEFAULTS.timezone),
  monitorIds: maintenanceFields.monitorIds.default([]),
  pageComponentIds: maintenanceFields.pageComponentIds.default([]),
});

/** The rules across a window's fields, on the window as it will be stored. */
export function maintenanceViolations(window: MaintenanceFields): FieldViolation[] {
  const length = window.endsAt.getTime() - window.startsAt.getTime();
  return [
    ...(length <= 0 ? [{ field: "endsAt", rule: "must be after startsAt" }] : []),
    ...(length > LIMITS.maintenanceMaxMs ? [{ field: "endsAt", rule: `must be at most ${LIMITS.maintenanceMaxMs / 86_400_000} days after startsAt` }] : []),
    ...(window.monitorIds.length === 0 && window.pageComponentIds.length === 0 ? [{ field: "monitorIds", rule: "a window names at least one monitor or page component" }] : []),
  ];
}

/** Validates a new window (`maintenance.<field>` in violations); absent optional fields take their defaults. */
export function parseMaintenance(input: Partial<Record<keyof MaintenanceFields, unknown>>, prefix = "maintenance"): MaintenanceFields {
  const window = parseOrThrow(maintenanceSchema, input, prefix);
  throwViolations(maintenanceViolations(window), prefix);
  return window;
}

export const MAINTENANCE_UPDATABLE = ["title", "message", "startsAt", "endsAt", "recurrence", "timezone", "monitorIds", "pageComponentIds"] as const;
export type MaintenanceChanges = Partial<MaintenanceFields>;

/** Validates the fields an update changes, each by its own rule; the rules across fields are checked on the result (maintenanceViolations). */
export function parseMaintenanceChanges(input: Partial<Record<keyof MaintenanceFields, unknown>>, prefix = "maintenance"): MaintenanceChanges {
  const shape = Object.fromEntries(Object.keys(input).map((key) => [key, maintenanceFields[key as keyof MaintenanceFields]]));
  return parseOrThrow(z.object(shape), input, prefix) as MaintenanceChanges;
}

/**
 * The occurrences of a window that overlap [from, to), earliest first. A
 * recurring window's occurrences start at the wall-clock time of startsAt in
 * its zone on each day the rule gives and last endsAt - startsAt. As RFC 5545
 * says (3.3.10), a day on which that time does not exist (skipped by a DST
 * change) has no occurrence; on one where it happens twice, the first counts.
 */
export function occurrencesBetween(timing: MaintenanceTiming, from: Date, to: Date): Occurrence[] {
  const length = timing.endsAt.getTime() - timing.startsAt.getTime();
  const overlaps = (start: number) => start < to.getTime() && start + length > from.getTime();
  if (timing.recurrence === "") return overlaps(timing.startsAt.getTime()) ? [{ startsAt: timing.startsAt, endsAt: timing.endsAt }] : [];
  const starts = ruleOf(timing).between(new Date(from.getTime() - length), to, true);
  return starts
    .map((start) => start.epochMilliseconds)
    .filter(overlaps)
    .map((start) => ({ startsAt: new Date(start), endsAt: new Date(start + length) }));
}

/** The next `count` occurrences that end after `now` (the first may be going on). */
export function nextOccurrences(timing: MaintenanceTiming, now: Date, count = MAINTENANCE_NEXT_OCCURRENCES): Occurrence[] {
  const length = timing.endsAt.getTime() - timing.startsAt.getTime();
  if (timing.recurrence === "") return timing.endsAt > now ? [{ startsAt: timing.startsAt, endsAt: timing.endsAt }] : [];
  const out: Occurrence[] = [];
  ruleOf(timing).all((start) => {
    const at = start.epochMilliseconds;
    if (at + length > now.getTime()) out.push({ startsAt: new Date(at), endsAt: new Date(at + length) });
    return out.length < count;
  });
  return out;
}

/** The occurrence going on at `at`, or null: occurrences include their start and exclude their end. */
export function occurrenceAt(timing: MaintenanceTiming, at: Date): Occurrence | null {
  return occurrencesBetween(timing, at, new Date(at.getTime() + 1))[0] ?? null;
}

/** Whether any of the windows is going on at `at`: a monitor named by one opens no incident then, and nothing is sent for it. */
export function inMaintenance(windows: readonly MaintenanceTiming[], at: Date): boolean {
  return windows.some((window) => occurrenceAt(window, at) !== null);
}

/**
 * "In maintenance at t" for many times between `from` and `to` (a batch of
 * results): each window's occurrences are expanded once, not once per time.
 */
export function maintenanceTimes(windows: readonly MaintenanceTiming[], from: Date, to: Date): (at: Date) => boolean {
  const spans = windows.flatMap((window) => occurrencesBetween(window, from, new Date(to.getTime() + 1)));
  return (at) => spans.some((span) => span.startsAt <= at && at < span.endsAt);
}
