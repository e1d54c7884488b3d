import { createRequire } from "node:module";
import type { Logger } from "@vigil/logging";

/**
 * A logger like @vigil/logging's (pino, JSON lines) but on stderr, since the benchmarks' stdout
 * carries their Markdown tables. pino is loaded from where @vigil/logging finds it.
 */
export function stderrLogger(level: string, name: string): Logger {
  const pino = createRequire(require.resolve("@vigil/logging"))("pino") as (options: object, stream: NodeJS.WritableStream) => Logger;
  return pino({ name, level, base: { service: `vigil-${name}` } }, process.stderr);
}
