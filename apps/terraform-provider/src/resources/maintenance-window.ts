import type { VigilClient } from "@vigil/client";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { LIMITS, MAINTENANCE_FREQUENCIES, maintenanceInputFromMessage, maintenanceSchema, parseMaintenance, parseMaintenanceChanges, type MaintenanceFields } from "@vigil/domain";
import { domainViolations } from "../diagnostics.js";
import { computed, fromOutput, required, toInput, withDefault, type BlockSpec } from "../schema/index.js";
import type { TfObject, TfValue } from "../values/index.js";
import type { ResourceDefinition } from "./definition.js";
import { answered, deleteIfPresent, timestampAttributes, timestampText, unlessMissing } from "./common.js";

type WindowMessage = NonNullable<Awaited<ReturnType<VigilClient["maintenance"]["getMaintenanceWindow"]>>["maintenance"]>;

const FIELDS = Object.keys(maintenanceSchema.shape) as (keyof MaintenanceFields)[];
const TIMES = ["startsAt", "endsAt"] as const;

const defaultOf = (field: keyof MaintenanceFields) => maintenanceSchema.shape[field].parse(undefined) as TfValue;

const schema: BlockSpec = {
  attributes: {
    id: computed("string", "The window's id."),
    title: required("string", `Title, 1 to ${LIMITS.incidentTitleMaxChars} characters on one line.`),
    message: withDefault("string", `What status pages say of it (Markdown), at most ${LIMITS.incidentMessageMaxChars} characters.`, defaultOf("message")),
    starts_at: required("string", "The (first) occurrence's start, an RFC 3339 time (2026-12-06T01:00:00Z)."),
    ends_at: required("string", `The (first) occurrence's end, after starts_at and at most ${LIMITS.maintenanceMaxMs / 86_400_000} days later; a recurring window's occurrences last as long.`),
    recurrence: withDefault(
      "string",
      `An RFC 5545 RRULE without DTSTART (FREQ=WEEKLY;BYDAY=SU; FREQ ${MAINTENANCE_FREQUENCIES.join(", ")}); empty: the window happens once.`,
      defaultOf("recurrence"),
    ),
    timezone: withDefault("string", "The IANA time zone a recurrence follows: occurrences start at starts_at's wall-clock time there.", defaultOf("timezone")),
    monitor_ids: withDefault(["list", "string"], `Monitors it mutes (at most ${LIMITS.maintenanceMonitors}): checked, but opening no incident and alerting nobody.`, defaultOf("monitorIds")),
    page_component_ids: withDefault(["list", "string"], `Status page components shown under_maintenance while it goes on (at most ${LIMITS.maintenanceComponents}).`, defaultOf("pageComponentIds")),
    ...timestampAttributes("window"),
  },
};

/** An RFC 3339 text as the domain's time; what is no time stays as it is, for the rule to name. */
const asTime = (value: unknown) => (typeof value === "string" && !Number.isNaN(Date.parse(value)) ? new Date(value) : value);

/** The domain's fields of a value, times as Dates. */
function windowInput(value: TfObject): Partial<Record<keyof MaintenanceFields, unknown>> {
  const input = toInput(schema, value);
  const fields: Partial<Record<keyof MaintenanceFields, unknown>> = Object.fromEntries(FIELDS.filter((field) => field in input).map((field) => [field, input[field]]));
  for (const time of TIMES) if (time in fields) fields[time] = asTime(fields[time]);
  return fields;
}

/** The request's window: the times as the API's timestamps. */
function requestOf(planned: TfObject) {
  const fields = parseMaintenance(windowInput(planned));
  return { ...fields, startsAt: timestampFromDate(fields.startsAt), endsAt: timestampFromDate(fields.endsAt) };
}

/** A time as the state keeps it: RFC 3339 in UTC, without milliseconds when they are 0, as configurations write it. */
const timeText = (at: Date) => at.toISOString().replace(".000Z", "Z");

/**
 * The window's state: times as timeText writes them; a configuration's other
 * spelling of the same instant (an offset, milliseconds) stays, so that a plan
 * after an apply shows no change.
 */
function stateOf(window: WindowMessage | undefined, known: TfObject | null): TfObject {
  const answer = answered(window, "maintenance window");
  const fields = parseMaintenance(maintenanceInputFromMessage(answer));
  const state = fromOutput(schema, {
    ...fields,
    startsAt: timeText(fields.startsAt),
    endsAt: timeText(fields.endsAt),
    id: answer.id,
    createdAt: timestampText(answer.createdAt),
    updatedAt: timestampText(answer.updatedAt),
  });
  for (const attribute of ["starts_at", "ends_at"]) {
    const spelled = known?.[attribute];
    if (typeof spelled === "string" && Date.parse(spelled) === Date.parse(String(state[attribute]))) state[attribute] = spelled;
  }
  return state;
}

export const maintenanceWindow: ResourceDefinition = {
  typeName: "service_maintenance_window",
  description: "A maintenance window: its monitors are checked but alert nobody, and the status page components it names show under_maintenance (docs/alerting.md \"Maintenance\").",
  schema,
  validate: (config) => domainViolations(() => parseMaintenanceChanges(windowInput(config))),
  async create(ctx, planned) {
    const { maintenance } = await ctx.client.maintenance.createMaintenanceWindow({ maintenance: requestOf(planned) }, { signal: ctx.signal });
    return stateOf(maintenance, planned);
  },
  async read(ctx, state) {
    const answer = await unlessMissing(ctx.client.maintenance.getMaintenanceWindow({ id: String(state.id) }, { signal: ctx.signal }));
    return answer ? stateOf(answer.maintenance, state) : null;
  },
  async update(ctx, planned, prior) {
    const request = { id: String(prior.id), maintenance: requestOf(planned), updateMask: { paths: [...FIELDS] } };
    const { maintenance } = await ctx.client.maintenance.updateMaintenanceWindow(request, { signal: ctx.signal });
    return stateOf(maintenance, planned);
  },
  async delete(ctx, state) {
    await deleteIfPresent(ctx.client.maintenance.deleteMaintenanceWindow({ id: String(state.id) }, { signal: ctx.signal }));
  },
  importState: (id) => ({ id }),
};
