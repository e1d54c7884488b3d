import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

/** The built command, as `pnpm vigil` runs it. Build it with `pnpm -s build` in apps/cli. */
export const CLI = resolve(__dirname, "../../dist/main.js");

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Settings that would leak from the machine running the tests into the command's. */
const CLEARED = ["SERVICE_API_KEY", "SERVICE_API_URL", "NO_COLOR", "FORCE_COLOR", "XDG_CONFIG_HOME", "NODE_OPTIONS"];

function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of CLEARED) delete env[name];
  return env;
}

/**
 * Runs `vigil args` as a subprocess with piped stdio. Asynchronous on purpose:
 * the API server under test runs in this process and must keep answering.
 */
export function startVigil(args: string[], env: NodeJS.ProcessEnv, input?: string) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the CLI first (cd apps/cli && pnpm -s build)`);
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...baseEnv(), ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input ?? "");
  const done = new Promise<Run>((resolveRun, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolveRun({ code, stdout, stderr }));
  });
  return { child, done, stdout: () => stdout };
}

export const vigil = (args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Run> => startVigil(args, env, input).done;
