import pino, { type Logger } from "pino";

export type { Logger };
export { DependencyState } from "./dependency-state";

/** JSON lines on stdout, one shape for every Vigil app; API keys and passwords never reach them. */
export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    base: { service: `vigil-${name}` },
    redact: { paths: ["*.headers['x-service-key']", "*.key", "*.password", "key", "password"], censor: "[redacted]" },
  });
}
