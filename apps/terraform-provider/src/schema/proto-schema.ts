import type { MessageInitShape } from "@bufbuild/protobuf";
import { Schema_NestedBlock_NestingMode, type SchemaSchema } from "../gen/tfplugin6_pb.js";
import { encodeType } from "../values/index.js";
import type { BlockSpec, NestedBlockSpec } from "./spec.js";

type SchemaInit = MessageInitShape<typeof SchemaSchema>;
type BlockInit = NonNullable<SchemaInit["block"]>;

const NESTING: Record<NestedBlockSpec["nesting"], Schema_NestedBlock_NestingMode> = {
  single: Schema_NestedBlock_NestingMode.SINGLE,
  list: Schema_NestedBlock_NestingMode.LIST,
  set: Schema_NestedBlock_NestingMode.SET,
};

function blockMessage(block: BlockSpec, description: string): BlockInit {
  return {
    description,
    attributes: Object.entries(block.attributes).map(([name, spec]) => ({
      name,
      type: encodeType(spec.type),
      description: spec.description,
      required: spec.required ?? false,
      optional: spec.optional ?? false,
      computed: spec.computed ?? false,
      sensitive: spec.sensitive ?? false,
    })),
    blockTypes: Object.entries(block.blocks ?? {}).map(([name, nested]) => ({
      typeName: name,
      nesting: NESTING[nested.nesting],
      block: blockMessage(nested.block, nested.description),
      maxItems: BigInt(nested.maxItems ?? 0),
    })),
  };
}

/** GetProviderSchema's description of a resource, data source or the provider itself. */
export function schemaMessage(block: BlockSpec, description: string, version = 0): SchemaInit {
  return { version: BigInt(version), block: blockMessage(block, description) };
}
