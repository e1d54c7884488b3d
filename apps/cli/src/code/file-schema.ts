import {
  ENTRY_KEY_MAX_CHARS,
  ENTRY_KEY_PATTERN,
  PROVIDER_TYPES,
  PROVIDER_BLOCK_SCHEMAS,
  SENSITIVE_FIELDS,
  blockName,
  list,
  channelSchema,
  componentSchema,
  dnsMonitorSchema,
  groupSchema,
  heartbeatMonitorSchema,
  heartbeatScheduleRule,
  grpcMonitorSchema,
  DEFAULTS,
  LIMITS,
  maintenanceSchema,
  maintenanceViolations,
  httpMonitorSchema,
  objectivesRule,
  set,
  statusPageSchema,
  tcpMonitorSchema,
  type MaintenanceFields,
  type ProviderType,
} from "@vigil/domain";
import { z } from "zod";

/**
 * The shape of a `vigil.yaml` file. Field rules are the API's own (from
 * @vigil/domain), so a file that passes here is refused by the API only for
 * what needs the workspace to decide (a slug taken by another page, say).
 * The JSON Schema shipped with the CLI is generated from this.
 */

/** A file's own name for an entry: stable across renames of its display name. */
const keyRule = "must be letters, digits, _ and -, starting with a letter or digit";
const entryKey = () => z.string().max(ENTRY_KEY_MAX_CHARS, `must be at most ${ENTRY_KEY_MAX_CHARS} characters`).regex(ENTRY_KEY_PATTERN, keyRule);

/** The server object an entry adopts, for objects created outside the file (`vigil export` writes it). */
const adoptedId = () => z.string().min(1, "must not be empty").describe("id of an existing object this entry manages; without it the entry is found by its key");

const entries = <T extends z.ZodType>(entry: T) => z.record(entryKey(), entry);

const monitorEntry = <K extends string, S extends z.ZodRawShape>(type: K, shape: S) =>
  z.strictObject({
    type: z.literal(type),
    id: adoptedId().optional(),
    ...shape,
    // The API's dependsOn holds ids; the file names the monitors by key, as channels and components do.
    dependsOn: set(entryKey()).describe("keys of the file's monitors it depends on (docs/alerting.md, Dependencies)").optional(),
  });

export const monitorEntrySchema = z.discriminatedUnion("type", [
  // The latency objective's pair is refused here as the API would, naming the entry's line.
  monitorEntry("http", httpMonitorSchema.in.shape).superRefine(objectivesRule),
  monitorEntry("tcp", tcpMonitorSchema.in.shape).superRefine(objectivesRule),
  monitorEntry("dns", dnsMonitorSchema.in.shape).superRefine(objectivesRule),
  // No ping URL: it is a secret the server makes, answered by `vigil monitors get`.
  monitorEntry("heartbeat", heartbeatMonitorSchema.in.shape).superRefine(heartbeatScheduleRule),
  monitorEntry("grpc", grpcMonitorSchema.in.shape).superRefine(objectivesRule),
]);

/** A field's rule without its default: left out, it stays left out (zod 4 applies a default inside optional()). */
const withoutDefault = <T extends z.ZodType>(rule: z.ZodDefault<T> | T): T => (rule instanceof z.ZodDefault ? (rule.unwrap() as T) : rule);

/** A block as the file writes it: strict, and its sensitive fields may be left out to keep the stored values. */
function fileBlock(type: ProviderType) {
  const shape: Record<string, z.ZodType> = { ...PROVIDER_BLOCK_SCHEMAS[type].shape };
  for (const field of SENSITIVE_FIELDS[type] as readonly string[]) shape[field] = withoutDefault(shape[field]!).optional();
  return z.strictObject(shape).optional();
}

export const BLOCK_NAMES = PROVIDER_TYPES.map(blockName);

export const notificationEntrySchema = z
  .strictObject({
    id: adoptedId().optional(),
    name: withoutDefault(channelSchema.shape.name).optional(),
    monitors: set(entryKey()).describe("keys of the file's monitors whose alerts it sends").optional(),
    reminderMinutes: withoutDefault(channelSchema.shape.reminderMinutes)
      .describe("resend the alert of an open, unacknowledged incident every this many minutes; 0 or left out: never")
      .optional(),
    ...Object.fromEntries(PROVIDER_TYPES.map((type) => [blockName(type), fileBlock(type)])),
  })
  .superRefine((entry, ctx) => {
    const given = BLOCK_NAMES.filter((name) => (entry as Record<string, unknown>)[name] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({ code: "custom", message: `must have exactly one provider block: ${BLOCK_NAMES.join(", ")}`, path: [] });
    }
  });

const groupEntrySchema = z.strictObject({ id: adoptedId().optional(), ...groupSchema.shape });

const { monitorId: _monitorId, groupId: _groupId, ...componentShape } = componentSchema.shape;
const componentEntrySchema = z.strictObject({
  id: adoptedId().optional(),
  ...componentShape,
  monitor: entryKey().describe("key of the file's monitor a monitor component shows").optional(),
  group: entryKey().describe("key of the page's group it belongs to").optional(),
});

export const statusPageEntrySchema = z.strictObject({
  id: adoptedId().optional(),
  ...statusPageSchema.shape,
  password: withoutDefault(statusPageSchema.shape.password).describe("left out, an existing page keeps its password").optional(),
  published: z.boolean().describe("shown to visitors (a new page is published)").default(true),
  groups: entries(groupEntrySchema).default({}),
  components: entries(componentEntrySchema).default({}),
});

/** An RFC 3339 time, kept as the file writes it; plan compares the instants. */
const fileTime = () => z.iso.datetime({ offset: true, error: "must be an RFC 3339 time such as 2026-12-06T01:00:00Z" });

/** A window's fields as the file names them: its monitors and page components by reference rather than id. */
const WINDOW_FILE_FIELDS: Record<string, string> = { monitorIds: "monitors", pageComponentIds: "components" };

/**
 * A window names monitors by the file's key, else by id (a monitor the file
 * does not manage), and page components by `<page key>/<component key>`, the
 * way the file nests them, else by id. Which ids exist only the plan can tell.
 */
const references = (max: number, describe: string) =>
  list(z.string().min(1, "must not be empty"), max)
    .pipe(set(z.string()))
    .describe(describe);

export const maintenanceEntrySchema = z
  .strictObject({
    id: adoptedId().optional(),
    title: maintenanceSchema.shape.title,
    message: withoutDefault(maintenanceSchema.shape.message).optional(),
    startsAt: fileTime().describe("the (first) start"),
    endsAt: fileTime().describe("the (first) end; a recurring window's occurrences last endsAt - startsAt"),
    recurrence: withoutDefault(maintenanceSchema.shape.recurrence).describe("an RFC 5545 RRULE without DTSTART, e.g. FREQ=WEEKLY;BYDAY=SU; left out: once").optional(),
    timezone: withoutDefault(maintenanceSchema.shape.timezone).describe("the IANA time zone the recurrence follows (default UTC)").optional(),
    monitors: references(LIMITS.maintenanceMonitors, "monitors it mutes: keys of the file's monitors, or ids").optional(),
    components: references(LIMITS.maintenanceComponents, "page components it puts under maintenance: <page key>/<component key>, or ids").optional(),
  })
  // The API's rules across fields (an end after the start, something named), at the entry's own field.
  .superRefine((entry, ctx) => {
    for (const { field, rule } of maintenanceViolations(windowFields(entry))) ctx.addIssue({ code: "custom", message: rule, path: [WINDOW_FILE_FIELDS[field] ?? field] });
  });

/** An entry as the API's fields, its references as the file gives them (the plan turns them into ids). */
export function windowFields(entry: {
  title: string;
  message?: string | undefined;
  startsAt: string;
  endsAt: string;
  recurrence?: string | undefined;
  timezone?: string | undefined;
  monitors?: string[] | undefined;
  components?: string[] | undefined;
}): MaintenanceFields {
  return {
    title: entry.title,
    message: entry.message ?? "",
    startsAt: new Date(entry.startsAt),
    endsAt: new Date(entry.endsAt),
    recurrence: entry.recurrence ?? "",
    timezone: entry.timezone ?? DEFAULTS.timezone,
    monitorIds: entry.monitors ?? [],
    pageComponentIds: entry.components ?? [],
  };
}

export const FILE_VERSION = 1;

export const fileSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(FILE_VERSION).default(FILE_VERSION),
  project: entryKey()
    .describe("names the objects this file manages: two files with different projects share a workspace without touching each other's")
    .default("default"),
  monitors: entries(monitorEntrySchema).default({}),
  notifications: entries(notificationEntrySchema).default({}),
  statusPages: entries(statusPageEntrySchema).default({}),
  maintenanceWindows: entries(maintenanceEntrySchema).default({}),
});

export type VigilFile = z.output<typeof fileSchema>;
export type MonitorEntry = z.output<typeof monitorEntrySchema>;
export type NotificationEntry = z.output<typeof notificationEntrySchema>;
export type StatusPageEntry = z.output<typeof statusPageEntrySchema>;
export type ComponentEntry = z.output<typeof componentEntrySchema>;
export type GroupEntry = z.output<typeof groupEntrySchema>;
export type MaintenanceEntry = z.output<typeof maintenanceEntrySchema>;

/** One thing wrong in a file: the field it is at (a path into the file) and the rule it breaks. */
export interface FileProblem {
  path: readonly (string | number)[];
  rule: string;
}

/** The JSON Schema of the file, for editors (`# yaml-language-server: $schema=…`) and other tools. */
export function fileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(fileSchema, { io: "input", unrepresentable: "any" }),
    title: "vigil.yaml: monitors, notification channels, status pages and maintenance windows of a Vigil workspace",
  };
}
