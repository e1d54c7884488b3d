import pino, { type Logger } from "pino";

export type { Logger };
export { DependencyState } from "./dependency-state";

/** JSON lines on stdout (or `destination`: tests read them), one shape for every Vigil app; API keys and passwords never reach them. */
export function createLogger(level: string, name: string, destination?: { write(line: string): void }): Logger {
  const options = {
    name,
    level,
    base: { service: `vigil-${name}` },
    redact: { paths: ["*.headers['x-service-key']", "*.key", "*.password", "key", "password"], censor: "[redacted]" },
  };
  return destination ? pino(options, destination) : pino(options);
}
