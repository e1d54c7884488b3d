import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { parseId, parsePage } from "@vigil/domain";
import { StatusPageSubscriberSchema, type StatusPageService, type StatusPageSubscriber } from "@vigil/proto/status-page";
import { actorOf } from "../../auth/context";
import { notFound } from "../../errors";
import type { FindPage } from "../ids";
import type { SubscriberDirectory, SubscriberRow } from "./repository";

type Methods<K extends keyof ServiceImpl<typeof StatusPageService>> = Pick<ServiceImpl<typeof StatusPageService>, K>;

/** A subscriber as owners see it: never its tokens nor its webhook's secret. */
function subscriberToMessage(row: SubscriberRow): StatusPageSubscriber {
  return create(StatusPageSubscriberSchema, {
    id: row.id,
    pageId: row.pageId,
    kind: row.kind,
    email: row.email ?? "",
    webhookUrl: row.webhookUrl ?? "",
    componentIds: row.componentIds,
    confirmed: row.confirmedAt !== null,
    ...(row.confirmedAt && { confirmedAt: timestampFromDate(row.confirmedAt) }),
    createdAt: timestampFromDate(row.createdAt),
  });
}

/** The owners' side of a page's subscribers: list them (the CSV export is built from the list) and remove one. */
export function subscriberMethods(subscribers: SubscriberDirectory, findPage: FindPage): Methods<"listStatusPageSubscribers" | "deleteStatusPageSubscriber"> {
  const workspaceOf = (ctx: HandlerContext) => actorOf(ctx).workspace.id;
  return {
    async listStatusPageSubscribers(req, ctx) {
      const list = parsePage({ limit: req.limit, offset: req.offset });
      const page = await findPage(ctx, req.pageId, "pageId");
      const { records, total } = await subscribers.list(page.id, list.limit, list.offset);
      return { subscribers: records.map(subscriberToMessage), totalSize: total };
    },

    async deleteStatusPageSubscriber(req, ctx) {
      const subscriber = await subscribers.find(workspaceOf(ctx), parseId(req.id));
      if (!subscriber || !(await subscribers.remove(subscriber.pageId, subscriber.id))) throw notFound(`status page subscriber ${req.id}`);
      return { success: true };
    },
  };
}
