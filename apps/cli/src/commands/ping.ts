import { Command, Option } from "commander";
import { globalOptions } from "../context.js";
import { CliError } from "../failures.js";
import { parseInteger } from "../fields.js";
import { readProfile } from "../profile.js";
import { resolveSettings } from "../settings.js";

interface PingOptions {
  start?: boolean;
  fail?: boolean;
  exitCode?: number;
  body?: string;
}

/** The ping URL of a token (under the API's address) or the URL itself, with the path of what it tells. */
function pingUrlOf(tokenOrUrl: string, apiUrl: string, options: PingOptions): string {
  const base = /^https?:\/\//.test(tokenOrUrl) ? tokenOrUrl : `${apiUrl.replace(/\/+$/, "")}/v1/ping/${encodeURIComponent(tokenOrUrl)}`;
  const told = [options.start && "start", options.fail && "fail", options.exitCode !== undefined && String(options.exitCode)].filter(Boolean);
  if (told.length > 1) throw new CliError("give one of --start, --fail and --exit-code");
  return told.length === 0 ? base : `${base}/${told[0]}`;
}

/**
 * `vigil ping <token or ping URL>`: what a job's script runs to report a run to a heartbeat monitor. The token is
 * the credential, so it needs no API key; the ping goes to the API's address (--api-url, SERVICE_API_URL, the
 * profile) unless a whole ping URL is given.
 */
export function pingCommand(): Command {
  return new Command("ping")
    .description("report a run of a job to its heartbeat monitor (no API key needed)")
    .argument("<token-or-url>", "the monitor's ping URL, or its token")
    .option("--start", "the run begins (its duration is measured until the next ping)")
    .option("--fail", "the run failed")
    .addOption(new Option("--exit-code <code>", "the run's exit code: 0 succeeds, anything else fails").argParser(parseInteger))
    .option("--body <text>", "text kept with the ping, e.g. the job's last log lines (the first 10 KB)")
    .action(async (tokenOrUrl: string, options: PingOptions, command: Command) => {
      const settings = resolveSettings(globalOptions(command), process.env, await readProfile());
      const url = pingUrlOf(tokenOrUrl, settings.apiUrl, options);
      let res: Response;
      try {
        res = await fetch(url, options.body === undefined ? {} : { method: "POST", body: options.body });
      } catch (error) {
        throw new CliError(`could not reach ${new URL(url).origin}: ${(error as Error).message}`);
      }
      if (res.status === 200) return;
      const text = await res.text();
      const message = (() => {
        try {
          return (JSON.parse(text) as { message?: string }).message ?? text;
        } catch {
          return text;
        }
      })();
      throw new CliError(`the ping was refused (${res.status}): ${message}`);
    });
}
