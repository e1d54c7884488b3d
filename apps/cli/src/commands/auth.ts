import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { createClient, SecondFactorRequired, type Identity } from "@vigil/client";
import { Command } from "commander";
import { action, globalOptions, type Context } from "../context.js";
import { CliError, describeFailure, EXIT } from "../failures.js";
import { createOutput, details, formatOf, type Output } from "../output.js";
import { profilePath, readProfile, removeProfile, saveProfile, type Profile } from "../profile.js";
import { resolveSettings } from "../settings.js";

const identityText = (out: Output, apiUrl: string, me: Identity) => details(out.colors, me, [["apiUrl", apiUrl]]);

/** Where readline echoes what is typed: nowhere, so the secret does not show on the screen. */
const hidden = new Writable({ write: (_chunk, _encoding, done) => done() });

/**
 * Secrets from prompts on a terminal (not echoed), else from the lines of
 * stdin in turn (`echo $KEY | vigil login`): one reader for every question,
 * since a reader takes more of a pipe than its first line.
 */
export function prompts() {
  const terminal = Boolean(process.stdin.isTTY);
  let prompt: ReturnType<typeof createInterface> | undefined;
  let lines: AsyncIterator<string> | undefined;
  return {
    async ask(what: string, { trim }: { trim: boolean }): Promise<string> {
      prompt ??= createInterface({ input: process.stdin, output: hidden, terminal });
      lines ??= prompt[Symbol.asyncIterator]();
      if (terminal) process.stderr.write(`${what}: `);
      const { value } = await lines.next();
      if (terminal) process.stderr.write("\n");
      const line = String(value ?? "");
      return trim ? line.trim() : line;
    },
    close: () => prompt?.close(),
  };
}

export function whoamiCommand(): Command {
  return new Command("whoami").description("the workspace, and the API key or person in use").action(
    action(async (ctx: Context) => {
      const me = await ctx.client.whoami();
      ctx.out.write(ctx.out.render(me, () => identityText(ctx.out, ctx.settings.apiUrl, me)));
    }),
  );
}

/**
 * Ends on the server the session a profile holds (before it is replaced or
 * removed); a server that cannot be reached leaves it to expire there.
 */
async function endSavedSession(profile: Profile, apiUrl: string): Promise<boolean> {
  if (!profile.session) return false;
  try {
    await createClient({ session: profile.session, baseUrl: profile.apiUrl ?? apiUrl }).signOut();
    return true;
  } catch (error) {
    process.stderr.write(`vigil: could not end the saved session on the server: ${describeFailure(error, profile.apiUrl ?? apiUrl)}\n`);
    return false;
  }
}

export function loginCommand(): Command {
  return new Command("login")
    .description(
      "check an API key (--api-key, else asked for), or sign in as a person (--email, the password asked for, and the code of a second factor when the account has one), and save the key or the session (never the password) with the API's address for later commands",
    )
    .option("--email <email>", "sign in as this person instead of saving an API key")
    .option("--totp <code>", "with --email: the code of your authenticator app, or a recovery code (else asked for when the account has a second factor)")
    .action(async (options: { email?: string; totp?: string }, command: Command) => {
      const flags = globalOptions(command);
      // The key is the one given now; the address may come from anywhere, as for other commands.
      const saved = await readProfile();
      const { apiUrl } = resolveSettings(flags, process.env, saved);
      const out = createOutput(formatOf(flags.output));
      let profile: Profile;
      let me: Identity;
      const asked = prompts();
      try {
        if (options.email !== undefined) {
          const password = await asked.ask("Password", { trim: false }); // taken as typed: spaces may be part of it
          if (!password) throw new CliError("no password given: type it when asked, or give it as the first line of stdin.", EXIT.usage);
          const credentials = { email: options.email, password, ...(options.totp !== undefined && { totp: options.totp }) };
          const anonymous = createClient({ baseUrl: apiUrl });
          const { token } = await anonymous.signIn(credentials).catch(async (error: unknown) => {
            if (!(error instanceof SecondFactorRequired) || options.totp !== undefined) throw error;
            const totp = await asked.ask("Code of your authenticator app (or a recovery code)", { trim: true });
            if (!totp) throw new CliError("this account has a second factor: type its code when asked, give it as the second line of stdin, or pass --totp.", EXIT.usage);
            return anonymous.signIn({ ...credentials, totp });
          });
          profile = { session: token, apiUrl };
          me = await createClient({ session: token, baseUrl: apiUrl }).whoami();
        } else {
          const apiKey = flags.apiKey || (await asked.ask("API key", { trim: true }));
          if (!apiKey) throw new CliError("no API key given: pass --api-key or type it when asked.", EXIT.usage);
          profile = { apiKey, apiUrl };
          me = await createClient({ apiKey, baseUrl: apiUrl }).whoami();
        }
      } catch (error) {
        throw error instanceof CliError ? error : new CliError(describeFailure(error, apiUrl));
      } finally {
        asked.close();
      }
      await endSavedSession(saved, apiUrl);
      const path = profilePath();
      await saveProfile(profile);
      const saves = profile.session ? "the session" : "the key";
      out.write(
        out.render({ profile: path, apiUrl, ...me }, () => `${identityText(out, apiUrl, me)}\nlogged in to ${me.slug}; ${saves} and address are saved in ${path}`),
      );
    });
}

export function logoutCommand(): Command {
  return new Command("logout")
    .description("remove the profile saved by `vigil login`, ending its session on the server if it holds one")
    .action(async (_options: object, command: Command) => {
      const flags = globalOptions(command);
      const out = createOutput(formatOf(flags.output));
      const path = profilePath();
      const saved = await readProfile(path);
      const signedOut = await endSavedSession(saved, resolveSettings(flags, process.env, saved).apiUrl);
      const removed = await removeProfile(path);
      const text = removed ? `removed the saved profile ${path}${signedOut ? " and ended its session" : ""}` : `no saved profile at ${path}`;
      out.write(out.render({ profile: path, removed, signedOut }, () => text));
    });
}
