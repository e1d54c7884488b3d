import { createRequire } from "node:module";
import type { Logger } from "@vigil/logging";

// bullmq is a dependency of the control plane and the agent, not of the repository root (where the
// benchmarks live): it is loaded from the control plane's node_modules, so the benchmark's worker is
// the very copy the control plane's scheduler uses.
export { Queue, Worker, type Job } from "../../apps/control-plane/node_modules/bullmq";

/**
 * A logger like @vigil/logging's (pino, JSON lines) but on stderr, since the benchmarks' stdout
 * carries their Markdown tables. pino is loaded from where @vigil/logging finds it.
 */
export function stderrLogger(level: string, name: string): Logger {
  const pino = createRequire(require.resolve("@vigil/logging"))("pino") as (options: object, stream: NodeJS.WritableStream) => Logger;
  return pino({ name, level, base: { service: `vigil-${name}` } }, process.stderr);
}
