import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { subscribersCsv } from "@vigil/domain";
import { StatusPageService, type StatusPageSubscriber } from "@vigil/proto/status-page";
import type { Command } from "commander";
import { action, send, type Context } from "../context.js";
import { withPaging } from "../fields.js";
import { isoTime, table } from "../output.js";

/** The most subscribers one list call answers. */
const PAGE_SIZE = 100;

const iso = (at: Timestamp | undefined) => (at ? timestampDate(at).toISOString() : "");

/** Every subscriber of a page, page by page. */
async function allSubscribers(ctx: Context, pageId: string): Promise<StatusPageSubscriber[]> {
  const all: StatusPageSubscriber[] = [];
  for (;;) {
    const { subscribers, totalSize } = await ctx.client.statusPages.listStatusPageSubscribers({ pageId, limit: PAGE_SIZE, offset: all.length });
    all.push(...subscribers);
    if (subscribers.length === 0 || all.length >= totalSize) return all;
  }
}

/** `status-pages subscribers …`: the people and webhooks told of a page's incidents and maintenance. */
export function addSubscriberCommands(subscribers: Command): Command {
  const m = StatusPageService.method;

  withPaging(subscribers.command("list").description("list a page's subscribers, oldest first").argument("<page-id>", "status page id")).action(
    action(async (ctx, pageId: string, options: Record<string, unknown>) => {
      await send(ctx, m.listStatusPageSubscribers, ctx.client.statusPages.listStatusPageSubscribers, { pageId, ...options }, (r) =>
        table(
          ctx.out.colors,
          ["ID", "KIND", "ADDRESS", "CONFIRMED", "COMPONENTS", "SINCE"],
          r.subscribers.map((s) => [s.id, s.kind, s.email || s.webhookUrl, s.confirmed ? "yes" : "no", s.componentIds.length === 0 ? "all" : String(s.componentIds.length), isoTime(s.createdAt)]),
        ),
      );
    }),
  );

  subscribers
    .command("export")
    .description("write all of a page's subscribers as CSV to stdout")
    .argument("<page-id>", "status page id")
    .action(
      action(async (ctx, pageId: string) => {
        const rows = (await allSubscribers(ctx, pageId)).map((s) => ({ ...s, confirmedAt: iso(s.confirmedAt), createdAt: iso(s.createdAt) }));
        ctx.out.write(subscribersCsv(rows).replace(/\n$/, ""));
      }),
    );

  subscribers
    .command("remove")
    .description("end a subscription (the subscriber is told nothing)")
    .argument("<id>", "subscriber id")
    .action(
      action(async (ctx, id: string) => {
        await send(ctx, m.deleteStatusPageSubscriber, ctx.client.statusPages.deleteStatusPageSubscriber, { id }, () => `removed subscriber ${id}`);
      }),
    );
  return subscribers;
}
