import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { monitorStatusCodec, regionCodec } from "@vigil/domain";
import { IncidentSchema, IncidentService } from "@vigil/proto";
import { Command } from "commander";
import { action, send } from "../context.js";
import { withPaging } from "../fields.js";
import { messageDetails, statusText, table, word } from "../output.js";

const date = (at: Timestamp | undefined) => (at ? timestampDate(at).toISOString() : "");

export function incidentsCommand(): Command {
  const incidents = new Command("incidents").description("incidents: the times monitors failed or were degraded");

  withPaging(incidents.command("list").description("list incidents, newest first"))
    .option("--monitor <id>", "only this monitor's")
    .option("--open", "only the ones not resolved yet")
    .action(
      action(async (ctx, options: { monitor?: string; open?: boolean; limit?: number; offset?: number }) => {
        const request = { monitorId: options.monitor, openOnly: options.open, limit: options.limit, offset: options.offset };
        await send(ctx, IncidentService.method.listIncidents, ctx.client.incidents.listIncidents, request, (r) =>
          table(
            ctx.out.colors,
            ["ID", "MONITOR", "SEVERITY", "STARTED", "RESOLVED", "ACKNOWLEDGED", "REGIONS", "REASON"],
            r.incidents.map((i) => [
              i.id,
              i.monitorId,
              statusText(ctx.out.colors, word(monitorStatusCodec, i.severity)),
              date(i.startedAt),
              date(i.resolvedAt) || "open",
              i.acknowledgedBy,
              i.regions.map((region) => word(regionCodec, region)).join(","),
              i.reason || i.error,
            ]),
          ),
        );
      }),
    );

  incidents
    .command("get")
    .description("show one incident and its timeline: when it failed, was degraded or recovered, and each region's verdict then")
    .argument("<id>", "incident id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, IncidentService.method.getIncident, ctx.client.incidents.getIncident, { id }, (r) =>
          [
            messageDetails(ctx.out.colors, IncidentSchema, r.incident),
            table(
              ctx.out.colors,
              ["TIME", "EVENT", "REGION", "STATUS", "STATUS CODE", "REASON"],
              r.timeline.flatMap((event) =>
                event.regions.map((region) => [
                  date(event.occurredAt),
                  event.type,
                  word(regionCodec, region.region),
                  statusText(ctx.out.colors, word(monitorStatusCodec, region.status)),
                  region.statusCode ? String(region.statusCode) : "",
                  region.reason || region.error,
                ]),
              ),
            ),
          ].join("\n"),
        );
      }),
    );

  incidents
    .command("ack")
    .description("acknowledge an open incident: its reminders stop and its webhook channels are told (again: the first acknowledgement is kept)")
    .argument("<id>", "incident id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, IncidentService.method.acknowledgeIncident, ctx.client.incidents.acknowledgeIncident, { id }, (r) =>
          `acknowledged incident ${id} (${date(r.incident?.acknowledgedAt)} by ${r.incident?.acknowledgedBy ?? ""})`,
        );
      }),
    );

  return incidents;
}
