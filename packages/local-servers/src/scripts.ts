import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

/**
 * Runs one of the repository's scripts/ensure-*.sh, which starts its server
 * when none answers, and returns what it prints: the server's URL.
 * (src/ and dist/ sit at the same depth, so one path serves both.)
 */
export function ensureServer(script: string, env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync("bash", [resolve(__dirname, "../../../scripts", script)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env,
  }).trim();
}
