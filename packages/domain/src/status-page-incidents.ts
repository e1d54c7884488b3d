import { z } from "zod";
import { LIMITS } from "./limits";
import { boolean, list, oneOf, readableText, requiredLine, text } from "./rules";
import { COMPONENT_STATUSES, type ComponentStatus } from "./status-page-status";
import { ValidationError, parseOrThrow, throwViolations, type FieldViolation } from "./validation";

/** What people say an incident is at, in Atlassian Statuspage's words. */
export const INCIDENT_STATUSES = ["investigating", "identified", "monitoring", "resolved"] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** What an incident does to a component: a component status other than operational. */
export const INCIDENT_IMPACTS = ["degraded_performance", "partial_outage", "major_outage"] as const satisfies readonly ComponentStatus[];
export type IncidentImpact = (typeof INCIDENT_IMPACTS)[number];

const message = readableText(LIMITS.incidentMessageMaxChars).min(1, "must not be empty");

const affected = z.object({ componentId: text(LIMITS.idMaxChars).min(1, "is required"), impact: oneOf(INCIDENT_IMPACTS) });

const incidentFields = {
  title: requiredLine(LIMITS.incidentTitleMaxChars),
  status: oneOf(INCIDENT_STATUSES),
  message,
  components: list(affected, LIMITS.incidentComponents).superRefine((components, ctx) => {
    const seen = new Set<string>();
    components.forEach(({ componentId }, index) => {
      if (seen.has(componentId)) ctx.addIssue({ code: "custom", message: `must not repeat component ${componentId}`, path: [index, "componentId"] });
      seen.add(componentId);
    });
  }),
  postmortem: readableText(LIMITS.incidentPostmortemMaxChars),
  monitorIncidentId: text(LIMITS.idMaxChars),
  internal: boolean(),
};

export type IncidentFields = { [K in keyof typeof incidentFields]: z.output<(typeof incidentFields)[K]> };
export type AffectedComponent = z.output<typeof affected>;

/** A new incident's fields with their defaults (the console's forms pick from it). */
export const incidentSchema = z.object({
  title: incidentFields.title,
  status: incidentFields.status,
  message: incidentFields.message,
  components: incidentFields.components.default([]),
  postmortem: incidentFields.postmortem.default(""),
  monitorIncidentId: incidentFields.monitorIncidentId.default(""),
  internal: incidentFields.internal.default(false),
});

/**
 * The rules across an incident's fields, on the incident as it will be stored:
 * only a resolved incident has a postmortem, and only an automatic incident
 * (one naming a monitor incident) can be kept internal.
 */
export function incidentViolations(incident: { status: IncidentStatus; postmortem: string; monitorIncidentId: string; internal: boolean }): FieldViolation[] {
  return [
    ...(incident.postmortem !== "" && incident.status !== "resolved" ? [{ field: "postmortem", rule: "only a resolved incident can have one" }] : []),
    ...(incident.internal && incident.monitorIncidentId === "" ? [{ field: "internal", rule: "only an incident naming monitorIncidentId can be kept internal" }] : []),
  ];
}

/** Validates a new incident (`incident.<field>` in violations); absent optional fields take their defaults. */
export function parseIncident(input: Partial<Record<keyof IncidentFields, unknown>>, prefix = "incident"): IncidentFields {
  const incident = parseOrThrow(incidentSchema, input, prefix);
  throwViolations(incidentViolations(incident), prefix);
  return incident;
}

/** The fields an update may change. */
export const INCIDENT_UPDATABLE = ["title", "postmortem", "internal", "components"] as const;
export type IncidentChanges = Partial<Pick<IncidentFields, (typeof INCIDENT_UPDATABLE)[number]>>;

/** Validates the fields an update changes, each by its own rule; the rules across fields are checked on the result (incidentViolations). */
export function parseIncidentChanges(input: Partial<Record<(typeof INCIDENT_UPDATABLE)[number], unknown>>, prefix = "incident"): IncidentChanges {
  const shape = Object.fromEntries(Object.keys(input).map((key) => [key, incidentFields[key as (typeof INCIDENT_UPDATABLE)[number]]]));
  return parseOrThrow(z.object(shape), input, prefix) as IncidentChanges;
}

/** Validates an update's status and message (named as in AddStatusPageIncidentUpdateRequest). */
export function parseIncidentUpdate(input: { status: unknown; message: unknown }): { status: IncidentStatus; message: string } {
  return parseOrThrow(z.object({ status: incidentFields.status, message: incidentFields.message }), input, "");
}

/** An incident keeps at most LIMITS.incidentUpdates updates, so that its page stays readable and bounded. */
export function checkUpdateCount(count: number): void {
  if (count >= LIMITS.incidentUpdates) {
    throw ValidationError.of("incidentId", `the incident already has ${LIMITS.incidentUpdates} updates, the most one may have`);
  }
}

/** How bad an incident is in Statuspage's words (summary.json's `impact`): by the worst impact it names. */
export function incidentImpactOf(components: readonly { impact: IncidentImpact }[]): "none" | "minor" | "major" | "critical" {
  const worst = Math.max(-1, ...components.map((c) => INCIDENT_IMPACTS.indexOf(c.impact)));
  return (["none", "minor", "major", "critical"] as const)[worst + 1]!;
}

/**
 * A component's status on the page: the worse of what its monitor says and the
 * impacts written by the open incidents naming it (docs/status-pages.md).
 */
export function worstStatus(statuses: readonly ComponentStatus[]): ComponentStatus {
  return statuses.reduce<ComponentStatus>((worst, s) => (COMPONENT_STATUSES.indexOf(s) > COMPONENT_STATUSES.indexOf(worst) ? s : worst), "operational");
}
