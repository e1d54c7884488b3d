import { readFile } from "node:fs/promises";
import { text as readStream } from "node:stream/consumers";
import { INCIDENT_IMPACTS, INCIDENT_STATUSES } from "@vigil/domain";
import { StatusPageIncidentSchema, StatusPageService, type StatusPageIncident } from "@vigil/proto/status-page";
import { InvalidArgumentError, type Command } from "commander";
import { action, send, type Context } from "../context.js";
import { CliError } from "../failures.js";
import { bodyOf, fields, updateMaskOf, withFields, withPaging, type FieldFlag } from "../fields.js";
import { isoTime, messageDetails, table } from "../output.js";

type Json = Record<string, unknown>;

/** `--component <id>=<impact>`: a component of the page and what the incident does to it. */
function parseAffected(value: string): { componentId: string; impact: string } {
  const at = value.lastIndexOf("=");
  if (at <= 0) throw new InvalidArgumentError(`must be "<component-id>=<impact>", the impact one of ${INCIDENT_IMPACTS.join(", ")}`);
  return { componentId: value.slice(0, at), impact: value.slice(at + 1) };
}

const componentsFlag = () => fields.each("--component <id=impact>", "components", `an affected component and its impact (${INCIDENT_IMPACTS.join(", ")})`, parseAffected);

/** Markdown is long and has line breaks: `--message-file` (or `--postmortem-file`) reads it from a file or - for stdin. */
async function fromFile(path: unknown, flag: string): Promise<string | undefined> {
  if (typeof path !== "string") return undefined;
  try {
    return path === "-" ? await readStream(process.stdin) : await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${flag} ${path}: ${(error as Error).message}`);
  }
}

/** The text of a flag or of its file flag; both at once is a mistake. */
async function textOf(options: Json, name: "message" | "postmortem"): Promise<string | undefined> {
  const file = await fromFile(options[`${name}File`], `--${name}-file`);
  if (file !== undefined && options[name] !== undefined) throw new CliError(`give --${name} or --${name}-file, not both`);
  return file ?? (options[name] as string | undefined);
}

const withText = (body: Json, field: string, value: string | undefined) => (value === undefined ? body : { ...body, [field]: value });

/** An incident as FIELD / VALUE rows, then its updates, newest first. */
function incidentDetails(ctx: Context, incident: StatusPageIncident | undefined): string {
  const { updates = [], ...rest } = incident ?? ({} as StatusPageIncident);
  const head = messageDetails(ctx.out.colors, StatusPageIncidentSchema, { ...rest, updates: [] } as StatusPageIncident);
  if (updates.length === 0) return head;
  return `${head}\n${table(ctx.out.colors, ["TIME", "STATUS", "MESSAGE"], updates.map((u) => [isoTime(u.createdAt), u.status, u.message.replace(/\s+/g, " ")]))}`;
}

/** `status-pages incidents …`: incidents people write on a page, with their updates. */
export function addIncidentCommands(incidents: Command): Command {
  const m = StatusPageService.method;
  const client = (ctx: Context) => ctx.client.statusPages;

  withPaging(incidents.command("list").description("list a page's incidents, newest first").argument("<page-id>", "status page id")).action(
    action(async (ctx, pageId: string, options: Json) => {
      await send(ctx, m.listStatusPageIncidents, client(ctx).listStatusPageIncidents, { pageId, ...options }, (r) =>
        table(
          ctx.out.colors,
          ["ID", "TITLE", "STATUS", "STARTED", "RESOLVED", "UPDATES", "COMPONENTS"],
          r.incidents.map((i) => [i.id, i.title ?? "", i.status ?? "", isoTime(i.createdAt), isoTime(i.resolvedAt), String(i.updates.length), String(i.components.length)]),
        ),
      );
    }),
  );

  incidents
    .command("get")
    .description("show an incident and its updates")
    .argument("<id>", "incident id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, m.getStatusPageIncident, client(ctx).getStatusPageIncident, { id }, (r) => incidentDetails(ctx, r.incident));
      }),
    );

  const createFlags = (): FieldFlag[] => [
    fields.text("--title <title>", "title", "what happened, in a line"),
    fields.text("--status <status>", "status", INCIDENT_STATUSES.join(", ")),
    componentsFlag(),
    fields.text("--monitor-incident <id>", "monitorIncidentId", "the automatic incident (`vigil incidents list`) it tells of"),
    ...fields.toggle("internal", "internal", "keep it and the automatic incident it names off the page"),
  ];
  const created = createFlags();
  withFields(incidents.command("create").description("write an incident on a page, with its first update").argument("<page-id>", "status page id"), created)
    .option("--message <markdown>", "the first update's message (Markdown)")
    .option("--message-file <file>", "the message from a file, or - for stdin")
    .action(
      action(async (ctx, pageId: string, options: Json) => {
        const body = withText({ ...(await bodyOf(created, options)), pageId }, "message", await textOf(options, "message"));
        await send(ctx, m.createStatusPageIncident, client(ctx).createStatusPageIncident, { incident: body }, (r) => incidentDetails(ctx, r.incident));
      }),
    );

  incidents
    .command("add-update")
    .description("add an update, which sets the incident's status")
    .argument("<id>", "incident id")
    .requiredOption("--status <status>", INCIDENT_STATUSES.join(", "))
    .option("--message <markdown>", "what to tell (Markdown)")
    .option("--message-file <file>", "the message from a file, or - for stdin")
    .action(
      action(async (ctx, incidentId: string, options: Json) => {
        const request = { incidentId, status: options.status, message: (await textOf(options, "message")) ?? "" };
        await send(ctx, m.addStatusPageIncidentUpdate, client(ctx).addStatusPageIncidentUpdate, request, (r) => incidentDetails(ctx, r.incident));
      }),
    );

  const updateFlags: FieldFlag[] = [
    fields.text("--title <title>", "title", "what happened, in a line"),
    componentsFlag(),
    ...fields.toggle("internal", "internal", "keep it and the automatic incident it names off the page"),
  ];
  withFields(incidents.command("update").description("change an incident's title, postmortem, components or internal").argument("<id>", "incident id"), updateFlags, true)
    .option("--postmortem <markdown>", "what happened and what will change (Markdown; a resolved incident only)")
    .option("--postmortem-file <file>", "the postmortem from a file, or - for stdin")
    .action(
      action(async (ctx, id: string, options: Json) => {
        const body = withText(await bodyOf(updateFlags, options), "postmortem", await textOf(options, "postmortem"));
        const request = { id, incident: body, updateMask: updateMaskOf(body, options.clear) };
        await send(ctx, m.updateStatusPageIncident, client(ctx).updateStatusPageIncident, request, (r) => incidentDetails(ctx, r.incident));
      }),
    );

  incidents
    .command("delete")
    .description("remove an incident and its updates from the page and its history")
    .argument("<id>", "incident id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, m.deleteStatusPageIncident, client(ctx).deleteStatusPageIncident, { id }, () => `deleted incident ${id}`);
      }),
    );
  return incidents;
}
