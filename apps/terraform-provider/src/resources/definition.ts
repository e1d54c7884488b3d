import type { VigilClient } from "@vigil/client";
import type { Violation } from "../diagnostics.js";
import type { BlockSpec } from "../schema/index.js";
import type { TfObject } from "../values/index.js";

/** What an operation gets: the configured client and a signal that StopProvider (Ctrl-C) aborts. */
export interface CallContext {
  client: VigilClient;
  signal: AbortSignal;
}

/**
 * A managed resource. The provider does the protocol (values, plans,
 * diagnostics); a resource only describes its attributes and moves whole
 * Terraform objects (every attribute of `schema` present) to and from the API.
 */
export interface ResourceDefinition {
  typeName: string;
  description: string;
  schema: BlockSpec;
  /** The rules a configuration breaks, by the domain's field names; unknown values are left out of `config`'s checks. */
  validate?(config: TfObject): Violation[];
  create(ctx: CallContext, planned: TfObject): Promise<TfObject>;
  /** The object as it is now, or null when it is gone (Terraform then plans to create it again). */
  read(ctx: CallContext, state: TfObject): Promise<TfObject | null>;
  update(ctx: CallContext, planned: TfObject, prior: TfObject): Promise<TfObject>;
  delete(ctx: CallContext, state: TfObject): Promise<void>;
  /** The partial state `read` completes for `terraform import <id>`. */
  importState(id: string): TfObject;
}

export interface DataSourceDefinition {
  typeName: string;
  description: string;
  schema: BlockSpec;
  validate?(config: TfObject): Violation[];
  read(ctx: CallContext, config: TfObject): Promise<TfObject>;
}
