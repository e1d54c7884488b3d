import type { HandlerContext } from "@connectrpc/connect";
import { ValidationError } from "@vigil/domain";
import type { PageRecord } from "./repository";

export function requireId(id: string, field = "id"): string {
  if (id === "") throw ValidationError.of(field, "is required");
  return id;
}

/** The page of the caller's workspace with this id; another workspace's page is not found, as an unknown one. */
export type FindPage = (ctx: HandlerContext, id: string, field?: string) => Promise<PageRecord>;
