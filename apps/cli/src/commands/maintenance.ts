import { readFile } from "node:fs/promises";
import { text as readStream } from "node:stream/consumers";
import { MAINTENANCE_FREQUENCIES } from "@vigil/domain";
import { MaintenanceService, MaintenanceWindowSchema, type MaintenanceWindow } from "@vigil/proto";
import { Command } from "commander";
import { action, send, type Context } from "../context.js";
import { CliError } from "../failures.js";
import { bodyOf, fields, updateMaskOf, withFields, withPaging, type FieldFlag } from "../fields.js";
import { isoTime, messageDetails, table } from "../output.js";

type Json = Record<string, unknown>;

/** A window as FIELD / VALUE rows, then its next occurrences. */
function windowDetails(ctx: Context, window: MaintenanceWindow | undefined): string {
  const { nextOccurrences = [], ...rest } = window ?? ({} as MaintenanceWindow);
  const head = messageDetails(ctx.out.colors, MaintenanceWindowSchema, { ...rest, nextOccurrences: [] } as MaintenanceWindow);
  if (nextOccurrences.length === 0) return `${head}\nno occurrence to come`;
  return `${head}\n${table(ctx.out.colors, ["STARTS", "ENDS"], nextOccurrences.map((o) => [isoTime(o.startsAt), isoTime(o.endsAt)]))}`;
}

/** `--message-file`: Markdown from a file, or - for stdin; with --message too is a mistake. */
async function messageOf(options: Json): Promise<string | undefined> {
  const path = options.messageFile;
  if (typeof path !== "string") return options.message as string | undefined;
  if (options.message !== undefined) throw new CliError("give --message or --message-file, not both");
  try {
    return path === "-" ? await readStream(process.stdin) : await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read --message-file ${path}: ${(error as Error).message}`);
  }
}

const flags = (): FieldFlag[] => [
  fields.text("--title <title>", "title", "what is done, in a line"),
  fields.text("--starts-at <time>", "startsAt", "the (first) start, an RFC 3339 time such as 2026-12-06T01:00:00Z"),
  fields.text("--ends-at <time>", "endsAt", "the (first) end; a recurring window's occurrences last ends-at - starts-at"),
  fields.text("--recurrence <rrule>", "recurrence", `an RFC 5545 RRULE without DTSTART, e.g. FREQ=WEEKLY;BYDAY=SU (FREQ ${MAINTENANCE_FREQUENCIES.join(", ")})`),
  fields.text("--timezone <zone>", "timezone", "the IANA time zone the recurrence follows (default UTC)"),
  fields.list("--monitors <ids>", "monitorIds", "monitors it mutes"),
  fields.list("--components <ids>", "pageComponentIds", "status page components it puts under maintenance"),
];

/** `vigil maintenance …`: maintenance windows (docs/alerting.md "Maintenance"). */
export function maintenanceCommand(): Command {
  const maintenance = new Command("maintenance").description("maintenance windows: times monitors are checked but alert nobody, shown on status pages");
  const m = MaintenanceService.method;
  const client = (ctx: Context) => ctx.client.maintenance;

  withPaging(maintenance.command("list").description("list maintenance windows, latest start first")).action(
    action(async (ctx, options: Json) => {
      await send(ctx, m.listMaintenanceWindows, client(ctx).listMaintenanceWindows, options, (r) =>
        table(
          ctx.out.colors,
          ["ID", "TITLE", "STARTS", "ENDS", "RECURRENCE", "TIMEZONE", "NEXT", "MONITORS", "COMPONENTS"],
          r.maintenances.map((w) => [
            w.id,
            w.title ?? "",
            isoTime(w.startsAt),
            isoTime(w.endsAt),
            w.recurrence ?? "",
            w.timezone ?? "",
            isoTime(w.nextOccurrences[0]?.startsAt),
            String(w.monitorIds.length),
            String(w.pageComponentIds.length),
          ]),
        ),
      );
    }),
  );

  maintenance
    .command("get")
    .description("show a window and its next occurrences")
    .argument("<id>", "maintenance window id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, m.getMaintenanceWindow, client(ctx).getMaintenanceWindow, { id }, (r) => windowDetails(ctx, r.maintenance));
      }),
    );

  const created = flags();
  withFields(maintenance.command("create").description("schedule a maintenance window"), created)
    .option("--message <markdown>", "what status pages say of it (Markdown)")
    .option("--message-file <file>", "the message from a file, or - for stdin")
    .action(
      action(async (ctx, options: Json) => {
        const body = await bodyOf(created, options);
        const message = await messageOf(options);
        await send(ctx, m.createMaintenanceWindow, client(ctx).createMaintenanceWindow, { maintenance: message === undefined ? body : { ...body, message } }, (r) =>
          windowDetails(ctx, r.maintenance),
        );
      }),
    );

  const updated = flags();
  withFields(maintenance.command("update").description("change a window; a list given replaces the window's").argument("<id>", "maintenance window id"), updated, true)
    .option("--message <markdown>", "what status pages say of it (Markdown)")
    .option("--message-file <file>", "the message from a file, or - for stdin")
    .action(
      action(async (ctx, id: string, options: Json) => {
        const fieldsSent = await bodyOf(updated, options);
        const message = await messageOf(options);
        const body = message === undefined ? fieldsSent : { ...fieldsSent, message };
        await send(ctx, m.updateMaintenanceWindow, client(ctx).updateMaintenanceWindow, { id, maintenance: body, updateMask: updateMaskOf(body, options.clear) }, (r) =>
          windowDetails(ctx, r.maintenance),
        );
      }),
    );

  maintenance
    .command("delete")
    .description("delete a window: its monitors alert again at once")
    .argument("<id>", "maintenance window id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, m.deleteMaintenanceWindow, client(ctx).deleteMaintenanceWindow, { id }, () => `deleted maintenance window ${id}`);
      }),
    );
  return maintenance;
}
