import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { createClient, type Identity } from "@vigil/client";
import { Command } from "commander";
import { action, globalOptions, type Context } from "../context.js";
import { CliError, describeFailure, EXIT } from "../failures.js";
import { createOutput, details, formatOf, type Output } from "../output.js";
import { profilePath, readProfile, removeProfile, saveProfile } from "../profile.js";
import { resolveSettings } from "../settings.js";

const identityText = (out: Output, apiUrl: string, me: Identity) => details(out.colors, me, [["apiUrl", apiUrl]]);

/** Where readline echoes what is typed: nowhere, so the key does not show on the screen. */
const hidden = new Writable({ write: (_chunk, _encoding, done) => done() });

/** The key from a prompt on a terminal (not echoed), else from the first line of stdin (`echo $KEY | vigil login`). */
async function askForKey(): Promise<string> {
  const terminal = Boolean(process.stdin.isTTY);
  const prompt = createInterface({ input: process.stdin, output: hidden, terminal });
  try {
    if (terminal) process.stderr.write("API key: ");
    const { value } = await prompt[Symbol.asyncIterator]().next();
    if (terminal) process.stderr.write("\n");
    return String(value ?? "").trim();
  } finally {
    prompt.close();
  }
}

export function whoamiCommand(): Command {
  return new Command("whoami").description("the workspace and API key in use").action(
    action(async (ctx: Context) => {
      const me = await ctx.client.whoami();
      ctx.out.write(ctx.out.render(me, () => identityText(ctx.out, ctx.settings.apiUrl, me)));
    }),
  );
}

export function loginCommand(): Command {
  return new Command("login")
    .description("check an API key (--api-key, else asked for) and save it with the API's address for later commands")
    .action(async (_options: object, command: Command) => {
      const flags = globalOptions(command);
      // The key is the one given now; the address may come from anywhere, as for other commands.
      const { apiUrl } = resolveSettings(flags, process.env, await readProfile());
      const apiKey = flags.apiKey || (await askForKey());
      if (!apiKey) throw new CliError("no API key given: pass --api-key or type it when asked.", EXIT.usage);
      const out = createOutput(formatOf(flags.output));
      let me: Identity;
      try {
        me = await createClient({ apiKey, baseUrl: apiUrl }).whoami();
      } catch (error) {
        throw new CliError(describeFailure(error, apiUrl));
      }
      const path = profilePath();
      await saveProfile({ apiKey, apiUrl });
      out.write(
        out.render({ profile: path, apiUrl, ...me }, () => `${identityText(out, apiUrl, me)}\nlogged in to ${me.slug}; the key and address are saved in ${path}`),
      );
    });
}

export function logoutCommand(): Command {
  return new Command("logout").description("remove the profile saved by `vigil login`").action(async (_options: object, command: Command) => {
    const out = createOutput(formatOf(globalOptions(command).output));
    const path = profilePath();
    const removed = await removeProfile(path);
    out.write(out.render({ profile: path, removed }, () => (removed ? `removed the saved profile ${path}` : `no saved profile at ${path}`)));
  });
}
