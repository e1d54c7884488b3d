import type { DescMethodUnary, DescMessage, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { createClient, type CallOptions, type VigilClient } from "@vigil/client";
import type { Command } from "commander";
import { CliError, describeFailure, missingKey } from "./failures.js";
import { createOutput, formatOf, type Output } from "./output.js";
import { readProfile } from "./profile.js";
import { resolveSettings, type GlobalFlags, type Settings } from "./settings.js";
import { requestOf } from "./fields.js";

/** What every API command works with. */
export interface Context {
  client: VigilClient;
  out: Output;
  settings: Settings;
  /** The global flags as given. */
  flags: GlobalOptions;
}

export interface GlobalOptions extends GlobalFlags {
  /** A format (table, json, yaml); for `export`, the file to write. */
  output?: string;
}

export const globalOptions = (command: Command) => command.optsWithGlobals<GlobalOptions>();

export async function contextOf(command: Command): Promise<Context> {
  const options = globalOptions(command);
  const settings = resolveSettings(options, process.env, await readProfile());
  if (!settings.apiKey && !settings.session) throw missingKey();
  return {
    client: createClient({ apiKey: settings.apiKey, session: settings.session, baseUrl: settings.apiUrl }),
    out: createOutput(command.name() === "export" ? "table" : formatOf(options.output)),
    settings,
    flags: options,
  };
}

/**
 * A commander action that talks to the API: it gets the context first, then
 * the command's arguments and options; a failure becomes a message saying
 * what went wrong and what to do.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function action<A extends any[]>(run: (ctx: Context, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const ctx = await contextOf(args[args.length - 1] as Command);
    try {
      await run(ctx, ...(args.slice(0, -1) as A));
    } catch (error) {
      throw error instanceof CliError ? error : new CliError(describeFailure(error, ctx.settings.apiUrl));
    }
  };
}

type Invoke<I extends DescMessage, O extends DescMessage> = (request: MessageInitShape<I>, options?: CallOptions) => Promise<MessageShape<O>>;

/**
 * Sends a request given in the API's JSON form through `invoke` (a client
 * method) and prints the answer: its JSON form for scripts, `human` otherwise.
 */
export async function send<I extends DescMessage, O extends DescMessage>(
  ctx: Context,
  method: DescMethodUnary<I, O>,
  invoke: Invoke<I, O>,
  json: Record<string, unknown>,
  human: (response: MessageShape<O>) => string,
): Promise<MessageShape<O>> {
  const response = await invoke(requestOf(method.input, json));
  ctx.out.write(ctx.out.renderMessage(method.output, response, () => human(response)));
  return response;
}

