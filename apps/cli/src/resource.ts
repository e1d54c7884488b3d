import type { DescMessage, DescMethodUnary, DescService } from "@bufbuild/protobuf";
import type { VigilClient } from "@vigil/client";
import { type Argument, type Command } from "commander";
import { action, send, type Context } from "./context.js";
import { bodyOf, updateMaskOf, withFields, withPaging, type FieldFlag } from "./fields.js";
import { messageDetails, table } from "./output.js";

type Json = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = any;

/**
 * One resource of the API as a row of a table, from which its commands are made, so that every
 * resource takes its ids, flags and `--from-json` alike and answers alike.
 */
export interface Resource {
  service: DescService;
  client: (client: VigilClient) => object;
  /** Its message; the contract names the methods after it (listStatusPages, getStatusPage, publishStatusPage, …). */
  schema: DescMessage;
  /** How messages name it: `deleted status page ID`. */
  noun: string;
  /** The field of requests and answers that holds it (`statusPage`). */
  field: string;
  /** A status page's part: its commands take `<page-id>` before its id. */
  child?: boolean;
  fields?: () => FieldFlag[];
  /**
   * Its commands in the order help lists them, with their descriptions: list, create, update,
   * delete, and any other verb (get, publish, …), which takes the id and answers with the resource.
   */
  commands: Record<string, string>;
  list?: { items: string; headers: string[]; row: (item: Answer) => string[] };
  /** The text of an answer holding the resource; by default its fields. */
  details?: (ctx: Context, answer: Answer) => string;
  /** What create and update take besides the fields (a channel's `<provider>` and `--set`), and the body they make of it. */
  create?: { argument: Argument; body: (ctx: Context, body: Json, options: Json, argument: string) => Json };
  update?: { body: (ctx: Context, body: Json, options: Json, id: string) => Promise<Json> };
  options?: (command: Command) => Command;
}

const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

/** Calls `verb` of the resource with the request in its JSON form and prints the answer. */
export function call(ctx: Context, resource: Pick<Resource, "service" | "client" | "schema">, verb: string, json: Json, human: (answer: Answer) => string) {
  const name = lowerFirst(`${verb}${resource.schema.name}${verb === "list" ? "s" : ""}`);
  const method = resource.service.method[name] as DescMethodUnary | undefined;
  if (!method) throw new Error(`${resource.service.typeName} has no method ${name}`);
  const invoke = (resource.client(ctx.client) as Record<string, Parameters<typeof send>[2]>)[name]!;
  return send(ctx, method, invoke, json, human);
}

const pageArgument = (command: Command) => command.argument("<page-id>", "status page id");

/** `<id>`, after `<page-id>` for a page's parts; their values as the request's fields. */
function withId(command: Command, resource: Resource): Command {
  return (resource.child ? pageArgument(command) : command).argument("<id>", resource.child ? "its id" : `${resource.noun} id`);
}
const idsOf = (resource: Resource, args: unknown[]) => (resource.child ? { pageId: args[0], id: args[1] } : { id: args[0] });

/** Adds the resource's commands to `parent`, as its table says. */
export function addCommands(parent: Command, resource: Resource): Command {
  const details = resource.details ?? ((ctx: Context, answer: Answer) => messageDetails(ctx.out.colors, resource.schema, answer[resource.field]));
  const extend = resource.options ?? ((command: Command) => command);
  for (const [verb, description] of Object.entries(resource.commands)) {
    const command = parent.command(verb).description(description);
    if (verb === "list") {
      const { items, headers, row } = resource.list!;
      withPaging(resource.child ? pageArgument(command) : command).action(
        action(async (ctx, ...args: unknown[]) => {
          const request = { ...(resource.child ? { pageId: args[0] } : {}), ...(args.at(-1) as Json) };
          await call(ctx, resource, verb, request, (answer) => table(ctx.out.colors, headers, (answer[items] as unknown[]).map(row)));
        }),
      );
    } else if (verb === "create") {
      const flags = resource.fields!();
      if (resource.child) pageArgument(command);
      if (resource.create) command.addArgument(resource.create.argument);
      extend(withFields(command, flags)).action(
        action(async (ctx, ...args: unknown[]) => {
          const options = args.at(-1) as Json;
          let body = await bodyOf(flags, options);
          if (resource.child) body = { ...body, pageId: args[0] };
          if (resource.create) body = resource.create.body(ctx, body, options, args[0] as string);
          await call(ctx, resource, verb, { [resource.field]: body }, (answer) => details(ctx, answer));
        }),
      );
    } else if (verb === "update") {
      const flags = resource.fields!();
      extend(withFields(withId(command, resource), flags, true)).action(
        action(async (ctx, ...args: unknown[]) => {
          const options = args.at(-1) as Json;
          const ids = idsOf(resource, args);
          let body = await bodyOf(flags, options);
          if (resource.update) body = await resource.update.body(ctx, body, options, ids.id as string);
          const request = { ...ids, [resource.field]: body, updateMask: updateMaskOf(body, options.clear) };
          await call(ctx, resource, verb, request, (answer) => details(ctx, answer));
        }),
      );
    } else if (verb === "delete") {
      withId(command, resource).action(
        action(async (ctx, ...args: unknown[]) => {
          const ids = idsOf(resource, args);
          await call(ctx, resource, verb, ids, () => `deleted ${resource.noun} ${ids.id}`);
        }),
      );
    } else {
      withId(command, resource).action(
        action(async (ctx, ...args: unknown[]) => {
          await call(ctx, resource, verb, idsOf(resource, args), (answer) => details(ctx, answer));
        }),
      );
    }
  }
  return parent;
}
