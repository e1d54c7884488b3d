import type { HandlerContext } from "@connectrpc/connect";
import type { PageRecord } from "./repository";

/** The page of the caller's workspace with this id; another workspace's page is not found, as an unknown one. */
export type FindPage = (ctx: HandlerContext, id: string, field?: string) => Promise<PageRecord>;
